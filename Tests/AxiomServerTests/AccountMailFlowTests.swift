import Foundation
import Testing
import TestSupport

/// The account flows with mail on, against the real binary and a real SMTP
/// server (aiosmtpd): the links arrive by mail, parsed with Python's
/// `email` package, and work once.
@Suite(.serialized) struct AccountMailFlowTests {
    static let password = "correct horse battery"

    @Test func aResetMailedByAddressWorksOnceEndsEverySessionAndTellsTheOwner() throws {
        let sink = try SMTPSink(["--tls", "none"])
        defer { sink.stop() }
        try ServerProcess.run(arguments: ["--port", "0"] + sink.serverArguments) { _, api in
            try api.register("Ann", email: "ann@example.com", password: Self.password)
            let verification = try #require(try sink.mails(1).first)
            #expect(verification.to == ["ann@example.com"])
            #expect(verification.text.contains("http://shop.test/verify-email?token="))
            let old = try api.token("ann@example.com", Self.password)

            // The same answer for a known and an unknown address.
            let known = try api.call("POST", "/password-resets", json: #"{"email":"ANN@example.com"}"#)
            let unknown = try api.call("POST", "/password-resets", json: #"{"email":"nobody@example.com"}"#)
            #expect(known.status == 202 && unknown.status == 202)
            #expect(known.body == unknown.body)
            let mails = try sink.mails(2)
            #expect(mails.count == 2, "nothing for the unknown address")
            let reset = try #require(mails.last)
            #expect(reset.to == ["ann@example.com"])
            #expect(reset.subject.contains("Reset your password"))
            let token = try #require(SMTPSink.token(in: reset.text))
            #expect(SMTPSink.token(in: reset.html) == token)

            let done = try api.call("POST", "/password-resets/complete",
                                    json: #"{"token":"\#(token)","password":"a brand new secret"}"#)
            #expect(done.status == 204)
            #expect(try api.call("GET", "/users/me", token: old).status == 401, "every session ended")
            let again = try api.call("POST", "/password-resets/complete",
                                     json: #"{"token":"\#(token)","password":"yet another secret"}"#)
            #expect(again.status == 422)
            #expect(api.object(again)["code"] as? String == "reset_token_invalid")
            let fresh = try api.token("ann@example.com", "a brand new secret")
            // The reset link proved the mailbox.
            #expect(api.object(try api.call("GET", "/users/me", token: fresh))["email_verified"] as? Bool == true)
            let notice = try #require(try sink.mails(3).last)
            #expect(notice.subject.contains("was changed") && notice.to == ["ann@example.com"])
            #expect(Set(try sink.mails(3).map(\.messageID)).count == 3)
        }
    }

    @Test func registrationVerifiesTheAddressAndATakenOneMailsItsOwnerWithTheSameAnswer() throws {
        let sink = try SMTPSink(["--tls", "none"])
        defer { sink.stop() }
        try ServerProcess.run(arguments: ["--port", "0"] + sink.serverArguments) { _, api in
            let created = try api.call("POST", "/users", json: #"{"name":"Bo","email":"bo@example.com","password":"\#(Self.password)"}"#)
            let taken = try api.call("POST", "/users", json: #"{"name":"Eve","email":"BO@example.com","password":"another long secret"}"#)
            #expect(created.status == 202 && taken.status == 202 && created.body == taken.body)
            let mails = try sink.mails(2)
            let link = try #require(mails.first { $0.subject.contains("Confirm") })
            let attempt = try #require(mails.first { $0.subject.contains("tried to register") })
            #expect(attempt.to == ["bo@example.com"] && SMTPSink.token(in: attempt.text) == nil)

            let token = try api.token("bo@example.com", Self.password)
            #expect(api.object(try api.call("GET", "/users/me", token: token))["email_verified"] as? Bool == false)
            let verify = try #require(SMTPSink.token(in: link.text))
            #expect(try api.call("POST", "/email-verifications", json: #"{"token":"\#(verify)"}"#).status == 204)
            #expect(try api.call("POST", "/email-verifications", json: #"{"token":"\#(verify)"}"#).status == 422)
            #expect(api.object(try api.call("GET", "/users/me", token: token))["email_verified"] as? Bool == true)
        }
    }
}
