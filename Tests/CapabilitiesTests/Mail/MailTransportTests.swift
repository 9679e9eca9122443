import Domain
import Foundation
import Testing
import TestSupport
@testable import Capabilities

/// The SMTP transport against a real server (aiosmtpd, `scripts/smtp_sink.py`):
/// each message as it arrived, parsed by Python's email package.
@Suite(.serialized) struct MailTransportTests {
    static func message(to: [MailAddress] = [MailAddress("ann@example.org", name: "Ann")], number: Int = 1,
                        subject: String = "Your order 42") -> MailMessage {
        MailMessage(from: MailAddress("shop@example.com", name: "Zoë's Shop"), to: to,
                    replyTo: MailAddress("help@example.com"), subject: subject,
                    text: "Hello Ann,\n.a line that starts with a dot\n\(String(repeating: "long ", count: 60))end\n€ 12,50",
                    html: "<p>Hello <b>Ann</b>,</p>\n<p>€ 12,50 = total</p>",
                    messageID: "<order-42-\(number)@shop.example.com>", date: 1_796_000_000)
    }

    @Test func startTLSWithAuthDeliversTheMessageAsWritten() async throws {
        let server = try SMTPSink(["--tls", "starttls", "--auth"])
        let transport = try MailTransport(server.settings(.starttls, username: SMTPSink.user,
                                                          password: SMTPSink.password))
        let sent = Self.message(subject: "Grüße – Ihre Bestellung Nr. 42 ist unterwegs, mit allem, was dazugehört ✓")
        let receipt = try await transport.send(sent)
        await transport.close()
        #expect(receipt.code == 250)
        #expect(receipt.text.contains("queued as Q1"))
        #expect(receipt.messageID == "<order-42-1@shop.example.com>")

        let accepted = try #require(try server.accepted().first)
        #expect(accepted.mailFrom == "shop@example.com")
        #expect(accepted.recipients == ["ann@example.org"])
        #expect(accepted.authenticated)
        #expect(accepted.overTLS)
        #expect(accepted.mailOptions.contains { $0.hasPrefix("SIZE=") })
        #expect(accepted.pipelined)

        let mail = try accepted.parsed()
        #expect(mail["defects"] as? [String] == [])
        #expect(mail["subject"] as? String == sent.subject)
        #expect(mail["from"] as? [[String: String]] == [["name": "Zoë's Shop", "address": "shop@example.com"]])
        #expect(mail["to"] as? [[String: String]] == [["name": "Ann", "address": "ann@example.org"]])
        #expect(mail["reply_to"] as? [[String: String]] == [["name": "", "address": "help@example.com"]])
        #expect(mail["message_id"] as? String == "<order-42-1@shop.example.com>")
        #expect(mail["date"] as? String == "2026-11-30T00:53:20+00:00")
        #expect(mail["mime_version"] as? String == "1.0")
        #expect(mail["content_type"] as? String == "multipart/alternative")
        let parts = try #require(mail["parts"] as? [[String: Any]])
        #expect(parts.map { $0["type"] as? String } == ["text/plain", "text/html"])
        #expect(parts.map { $0["charset"] as? String } == ["utf-8", "utf-8"])
        #expect(parts.map { $0["encoding"] as? String } == ["quoted-printable", "quoted-printable"])
        #expect(parts.first?["text"] as? String == sent.text)
        #expect(parts.last?["text"] as? String == sent.html)
        #expect(mail["bare_lf"] as? Int == 0)
        #expect((mail["longest_line"] as? Int ?? 999) <= 78)
    }

    @Test func authLoginWhenPlainIsNotOffered() async throws {
        let server = try SMTPSink(["--tls", "starttls", "--auth", "--auth-mechanisms", "LOGIN"])
        let transport = try MailTransport(server.settings(.starttls, username: SMTPSink.user,
                                                          password: SMTPSink.password))
        _ = try await transport.send(Self.message())
        await transport.close()
        #expect(try server.accepted().map(\.authenticated) == [true])
    }

    @Test func implicitTLSFromTheFirstByte() async throws {
        let server = try SMTPSink(["--tls", "implicit", "--auth"])
        let transport = try MailTransport(server.settings(.implicit, username: SMTPSink.user,
                                                          password: SMTPSink.password))
        _ = try await transport.send(Self.message())
        await transport.close()
        let accepted = try server.accepted()
        #expect(accepted.map(\.overTLS) == [true])
        #expect(accepted.map(\.authenticated) == [true])
    }

    @Test func nonASCIIRecipientGoesWithSMTPUTF8() async throws {
        let server = try SMTPSink(["--tls", "none"])
        let transport = try MailTransport(server.settings(.none))
        _ = try await transport.send(Self.message(to: [MailAddress("jürgen@bücher.example", name: "Jürgen Groß")]))
        await transport.close()
        let accepted = try #require(try server.accepted().first)
        #expect(accepted.recipients == ["jürgen@bücher.example"])
        #expect(accepted.mailOptions.contains("SMTPUTF8"))
        #expect(accepted.mailOptions.contains("BODY=8BITMIME"))
        let mail = try accepted.parsed()
        #expect(mail["to"] as? [[String: String]] == [["name": "Jürgen Groß", "address": "jürgen@bücher.example"]])
        #expect(mail["defects"] as? [String] == [])
    }

    @Test func withoutPipeliningEachCommandWaitsForItsReply() async throws {
        let server = try SMTPSink(["--tls", "none", "--no-pipelining"])
        let transport = try MailTransport(server.settings(.none))
        _ = try await transport.send(Self.message(to: [MailAddress("ann@example.org"), MailAddress("bob@example.org")]))
        await #expect(throws: MailRejected.self) {
            try await transport.send(Self.message(to: [MailAddress("ann@example.org"), MailAddress("nobody@example.org")]))
        }
        await transport.close()
        let accepted = try server.accepted()
        #expect(accepted.map(\.recipients) == [["ann@example.org", "bob@example.org"]])
        #expect(accepted.map(\.pipelined) == [false])
    }

    @Test func messagesShareOneConnection() async throws {
        let server = try SMTPSink(["--tls", "starttls"])
        let transport = try MailTransport(server.settings(.starttls))
        _ = try await transport.send(Self.message(number: 1))
        _ = try await transport.send(Self.message(number: 2))
        // Concurrent sends take turns on the one connection.
        try await withThrowingTaskGroup(of: MailReceipt.self) { group in
            for number in 3...6 { group.addTask { try await transport.send(Self.message(number: number)) } }
            for try await receipt in group { #expect(receipt.code == 250) }
        }
        await transport.close()
        let accepted = try server.accepted()
        #expect(accepted.count == 6)
        #expect(Set(accepted.map(\.connection)).count == 1)
        #expect(Set(try accepted.map { try $0.parsed()["message_id"] as? String }).count == 6)
    }

    @Test func availabilityIsProbedWithAConnectionTheNextSendUses() async throws {
        let server = try SMTPSink(["--tls", "starttls"])
        let transport = try MailTransport(server.settings(.starttls))
        #expect(await transport.checkAvailability())
        _ = try await transport.send(Self.message())
        await transport.close()
        server.stop()
        #expect(try server.accepted().map(\.connection).count == 1)
        // The probe's connection carried the message: no other was opened.
        #expect(try server.accepted().first?.connection == 1)

        #expect(!(await transport.checkAvailability()))
        #expect(!transport.isAvailable)
        await #expect(throws: MailTransportError.self) { try await transport.send(Self.message()) }
    }

    @Test func aKeptConnectionTheServerClosedIsReplacedOnce() async throws {
        let server = try SMTPSink(["--tls", "none", "--idle-timeout", "0.3"])
        let transport = try MailTransport(server.settings(.none))
        _ = try await transport.send(Self.message(number: 1))
        // Past the server's idle timeout: it has closed the kept connection.
        try await Task.sleep(for: .seconds(1))
        _ = try await transport.send(Self.message(number: 2))
        await transport.close()
        let connections = try server.accepted().map(\.connection)
        #expect(connections.count == 2)
        #expect(Set(connections).count == 2)
    }

    @Test func aDeferralIsTransientAndTheNextAttemptGoesThrough() async throws {
        let server = try SMTPSink(["--tls", "none", "--defer", "1"])
        let transport = try MailTransport(server.settings(.none))
        let error = await #expect(throws: MailTransportError.self) { try await transport.send(Self.message()) }
        guard case .deferred(let step, let code, _) = error else {
            Issue.record("not deferred: \(String(describing: error))")
            return
        }
        #expect(step == "DATA")
        #expect(code == 451)
        #expect(!((error as Any) is any PermanentFailure))
        _ = try await transport.send(Self.message())
        await transport.close()
        let accepted = try server.accepted()
        #expect(accepted.count == 1)
    }

    @Test func aRejectedRecipientIsPermanent() async throws {
        let server = try SMTPSink(["--tls", "none"])
        let transport = try MailTransport(server.settings(.none))
        let error = await #expect(throws: MailRejected.self) {
            try await transport.send(Self.message(to: [MailAddress("nobody@example.org")]))
        }
        #expect(error?.code == 550)
        #expect(error?.step == "RCPT TO:<nobody@example.org>")
        #expect((error as Any) is any PermanentFailure)
        // The connection carries the next message.
        _ = try await transport.send(Self.message())
        await transport.close()
        let accepted = try server.accepted()
        #expect(accepted.map(\.recipients) == [["ann@example.org"]])
    }

    @Test func aPipelinedDataAfterARefusedRecipientDeliversNothing() async throws {
        let server = try SMTPSink(["--tls", "none"])
        let transport = try MailTransport(server.settings(.none))
        // DATA is answered 354 (one recipient was accepted): the transport
        // drops the connection instead of sending the message to only one.
        let error = await #expect(throws: MailRejected.self) {
            try await transport.send(Self.message(to: [MailAddress("ann@example.org"), MailAddress("nobody@example.org")]))
        }
        #expect(error?.code == 550)
        _ = try await transport.send(Self.message())
        await transport.close()
        let accepted = try server.accepted()
        #expect(accepted.map(\.recipients) == [["ann@example.org"]])
        #expect(accepted.map(\.pipelined) == [true])
    }

    @Test func aCertificateForAnotherHostIsRefused() async throws {
        let server = try SMTPSink(["--tls", "starttls", "--cert-host", "other.example"])
        let transport = try MailTransport(server.settings(.starttls))
        let error = await #expect(throws: MailTransportError.self) { try await transport.send(Self.message()) }
        guard case .connection(.tlsFailed(let reason)) = error else {
            Issue.record("not a TLS refusal: \(String(describing: error))")
            return
        }
        #expect(reason.contains("hostname mismatch"))
        #expect(try server.accepted().isEmpty)
        #expect(!transport.isAvailable)
    }

    @Test func anUnknownCAIsRefused() async throws {
        let server = try SMTPSink(["--tls", "implicit"])
        let transport = try MailTransport(server.settings(.implicit, trustingItsCA: false))
        let error = await #expect(throws: MailTransportError.self) { try await transport.send(Self.message()) }
        guard case .connection(.tlsFailed(let reason)) = error else {
            Issue.record("not a TLS refusal: \(String(describing: error))")
            return
        }
        #expect(reason.contains("unable to get local issuer certificate"))
        #expect(try server.accepted().isEmpty)
    }

    @Test func aWrongPasswordIsRefusedAndRetryable() async throws {
        let server = try SMTPSink(["--tls", "starttls", "--auth"])
        let transport = try MailTransport(server.settings(.starttls, username: SMTPSink.user, password: "wrong"))
        let error = await #expect(throws: MailTransportError.self) { try await transport.send(Self.message()) }
        guard case .sessionRefused(let step, let code, _) = error else {
            Issue.record("not a refused session: \(String(describing: error))")
            return
        }
        #expect(step == "AUTH")
        #expect(code == 535)
        #expect(try server.accepted().isEmpty)
    }

    @Test func startTLSIsRequiredWhenTheSettingsSaySo() async throws {
        let server = try SMTPSink(["--tls", "none"])
        let transport = try MailTransport(server.settings(.starttls))
        let error = await #expect(throws: MailTransportError.self) { try await transport.send(Self.message()) }
        #expect(error == .unsupported("STARTTLS is not offered"))
        #expect(try server.accepted().isEmpty)
    }
}
