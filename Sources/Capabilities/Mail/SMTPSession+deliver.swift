extension SMTPSession {
    /// One mail transaction (RFC 5321 3.3): MAIL FROM with the parameters
    /// the server offers and the message needs, RCPT TO for each
    /// recipient, DATA with the dot-stuffed message. With PIPELINING
    /// (RFC 2920) MAIL, RCPT and DATA go in one write and their replies
    /// are read in order.
    mutating func deliver(_ mail: EncodedMail) async throws -> MailReceipt {
        var parameters = ""
        if mail.needsSMTPUTF8 {
            guard extensions.smtpUTF8 else { throw MailMessageError.needsSMTPUTF8 }
            parameters += " SMTPUTF8"
        }
        if mail.hasEightBitOctets, extensions.eightBitMIME { parameters += " BODY=8BITMIME" }
        if let limit = extensions.sizeLimit {
            guard limit == 0 || mail.bytes.count <= limit else {
                throw MailMessageError.tooLarge(bytes: mail.bytes.count, limit: limit)
            }
            parameters += " SIZE=\(mail.bytes.count)"
        }
        let commands = ["MAIL FROM:<\(mail.sender)>\(parameters)"] + mail.recipients.map { "RCPT TO:<\($0)>" } + ["DATA"]
        var replies: [SMTPReply] = []
        if extensions.pipelining {
            try await write(Array(commands.map { $0 + "\r\n" }.joined().utf8))
            for command in commands { replies.append(try await reply(step: command)) }
        } else {
            for command in commands {
                let reply = try await self.command(command)
                replies.append(reply)
                // Unpipelined, nothing follows a refused step.
                if command != "DATA", !reply.isPositive { break }
            }
        }
        let dataAccepted = replies.count == commands.count && replies[replies.count - 1].code == 354
        if let refusal = zip(commands, replies).first(where: { !$0.1.isPositive && $0.1.code != 354 }) {
            // A 354 after a refused recipient asks for the message; only
            // dropping the connection stops it from being delivered.
            if dataAccepted { markBroken(); connection.close() }
            throw Self.failure(step: refusal.0, refusal.1)
        }
        guard dataAccepted else { throw MailTransportError.protocolViolation("DATA was not answered") }
        try await write(Self.dotStuffed(mail.bytes))
        let final = try await reply(step: "DATA")
        guard final.isPositive else { throw Self.failure(step: "DATA", final) }
        lastUsed = .now
        return MailReceipt(messageID: mail.messageID, code: final.code, text: final.text)
    }

    /// 4xx: try later; 5xx: this message is refused for good.
    private static func failure(step: String, _ reply: SMTPReply) -> any Error {
        if reply.isTransient { return MailTransportError.deferred(step: step, code: reply.code, text: reply.text) }
        if reply.code >= 500 { return MailRejected(step: step, code: reply.code, text: reply.text) }
        return MailTransportError.protocolViolation("\(step) answered \(reply.code) \(reply.text)")
    }

    /// The message with a `.` before every line that starts with one
    /// (RFC 5321 4.5.2), then the `.` line that ends DATA.
    static func dotStuffed(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 64)
        var atLineStart = true
        for byte in bytes {
            if atLineStart, byte == UInt8(ascii: ".") { output.append(UInt8(ascii: ".")) }
            output.append(byte)
            atLineStart = byte == 0x0A
        }
        if !atLineStart { output += [0x0D, 0x0A] }
        output += Array(".\r\n".utf8)
        return output
    }
}
