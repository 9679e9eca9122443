/// One open SMTP connection past its greeting, EHLO, STARTTLS and AUTH:
/// ready for transactions (`SMTPSession+deliver.swift`). Used by one send
/// at a time; `MailTransport` keeps it between sends.
struct SMTPSession: Sendable {
    let connection: OutboundConnection
    private(set) var extensions: SMTPExtensions
    private var reader = SMTPReplyReader()
    private let commandTimeout: Duration
    /// When the last transaction ended: an idle connection is not reused
    /// after `MailTransportSettings.idleTimeout`.
    var lastUsed = ContinuousClock.now
    /// Set once the connection cannot carry another transaction.
    private(set) var isBroken = false

    private init(connection: OutboundConnection, commandTimeout: Duration) {
        self.connection = connection
        self.commandTimeout = commandTimeout
        self.extensions = SMTPExtensions(ehlo: SMTPReply(code: 250, lines: []))
    }

    /// Connects and brings the session to where a transaction may start.
    static func open(_ settings: MailTransportSettings, tls: TLSClientContext?) async throws -> SMTPSession {
        let options = ConnectOptions(timeout: settings.connectTimeout, tls: settings.security == .implicit ? tls : nil)
        let connection: OutboundConnection
        do {
            connection = try await OutboundConnection.connect(host: settings.host, port: settings.port, options: options)
        } catch {
            throw MailTransportError.connection(error)
        }
        var session = SMTPSession(connection: connection, commandTimeout: settings.commandTimeout)
        do {
            try await session.start(settings, tls: tls)
        } catch {
            connection.close()
            throw error
        }
        return session
    }

    private mutating func start(_ settings: MailTransportSettings, tls: TLSClientContext?) async throws {
        try Self.expect(try await reader.reply(from: connection, timeout: commandTimeout), 220, step: "greeting")
        try await hello(settings.ehloName)
        if settings.security == .starttls, let tls {
            guard extensions.startTLS else { throw MailTransportError.unsupported("STARTTLS is not offered") }
            try Self.expect(try await command("STARTTLS"), 220, step: "STARTTLS")
            // RFC 3207 section 6: anything sent before the handshake is
            // unprotected and must not be taken as a reply after it.
            guard !reader.hasBufferedBytes else {
                throw MailTransportError.protocolViolation("bytes after the STARTTLS reply")
            }
            do {
                try await connection.startTLS(tls, timeout: settings.connectTimeout)
            } catch {
                throw MailTransportError.connection(error)
            }
            // RFC 3207 section 4.2: what was learnt before TLS is discarded.
            try await hello(settings.ehloName)
        }
        if let username = settings.username {
            guard connection.isSecure || settings.security == .none else {
                throw MailTransportError.unsupported("credentials would cross an unencrypted connection")
            }
            try await authenticate(username: username, password: settings.password ?? "")
        }
    }

    private mutating func hello(_ name: String) async throws {
        let reply = try await command("EHLO \(name)")
        try Self.expect(reply, 250, step: "EHLO")
        extensions = SMTPExtensions(ehlo: reply)
    }

    /// AUTH PLAIN (RFC 4616) where offered, else LOGIN.
    private mutating func authenticate(username: String, password: String) async throws {
        if extensions.authMechanisms.contains("PLAIN") {
            let credentials = Base64.encode([0] + Array(username.utf8) + [0] + Array(password.utf8))
            try Self.expect(try await command("AUTH PLAIN \(credentials)", shown: "AUTH PLAIN"), 235, step: "AUTH")
        } else if extensions.authMechanisms.contains("LOGIN") {
            try Self.expect(try await command("AUTH LOGIN"), 334, step: "AUTH")
            try Self.expect(try await command(Base64.encode(Array(username.utf8)), shown: "AUTH"), 334, step: "AUTH")
            try Self.expect(try await command(Base64.encode(Array(password.utf8)), shown: "AUTH"), 235, step: "AUTH")
        } else {
            throw MailTransportError.unsupported("neither AUTH PLAIN nor LOGIN is offered")
        }
    }

    /// RSET: ends whatever a failed transaction left, and shows whether a
    /// kept connection still answers.
    mutating func reset() async throws {
        try Self.expect(try await command("RSET"), 250, step: "RSET")
    }

    /// QUIT and close, waiting a moment at most for the goodbye.
    mutating func quit() async {
        if !isBroken { _ = try? await command("QUIT", timeout: min(commandTimeout, .seconds(2))) }
        connection.close()
    }

    /// Writes a command line and reads its reply; `shown` names it in
    /// errors instead of the line (which may carry credentials).
    mutating func command(_ line: String, shown: String? = nil, timeout: Duration? = nil) async throws -> SMTPReply {
        try await write(Array((line + "\r\n").utf8))
        return try await reply(step: shown ?? line, timeout: timeout)
    }

    mutating func write(_ bytes: [UInt8]) async throws {
        do {
            try await connection.write(bytes, timeout: commandTimeout)
        } catch {
            isBroken = true
            throw MailTransportError.connection(error)
        }
    }

    mutating func reply(step: String, timeout: Duration? = nil) async throws -> SMTPReply {
        do {
            let reply = try await reader.reply(from: connection, timeout: timeout ?? commandTimeout)
            if reply.closesConnection { isBroken = true }
            return reply
        } catch {
            isBroken = true
            throw error
        }
    }

    mutating func markBroken() { isBroken = true }

    /// A reply other than `code` as the error for a session step: 4xx is
    /// deferred, anything else a refusal of these settings.
    static func expect(_ reply: SMTPReply, _ code: Int, step: String) throws {
        guard reply.code != code else { return }
        if reply.isTransient { throw MailTransportError.deferred(step: step, code: reply.code, text: reply.text) }
        throw MailTransportError.sessionRefused(step: step, code: reply.code, text: reply.text)
    }
}
