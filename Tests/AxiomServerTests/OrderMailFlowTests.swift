import Foundation
import Testing
import TestSupport

/// The shop's mails through the real binary to a real SMTP server
/// (aiosmtpd, STARTTLS on a CA the test makes, AUTH), each message read
/// back with Python's email package: what a customer gets when they order,
/// pay and are shipped to, and what a shop without mail settings queues
/// (nothing).
@Suite(.serialized) struct OrderMailFlowTests {
    typealias Shop = PaymentShop

    /// The settings that send the server's mail to `sink` (STARTTLS, AUTH).
    static func mailArguments(_ sink: SMTPSink) -> [String] {
        sink.serverArguments(tls: "starttls", auth: true, publicURL: "https://shop.example", fromName: "Tea & <Co>")
    }

    /// The messages accepted so far whose subject names `order`.
    static func mails(about order: String, in sink: SMTPSink, count: Int) throws -> [[String: Any]] {
        let deadline = Date().addingTimeInterval(30)
        while true {
            let parsed = try sink.accepted().map { try $0.parsed() }
                .filter { ($0["subject"] as? String)?.contains(order) == true }
            if parsed.count >= count || Date() > deadline { return parsed }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    static func part(_ mail: [String: Any], _ type: String) -> String {
        ((mail["parts"] as? [[String: Any]]) ?? []).first { $0["type"] as? String == type }?["text"] as? String ?? ""
    }

    @Test func anOrderPaidAndShippedMailsItsCustomerThreeTimesOverStartTLS() throws {
        let sink = try SMTPSink(["--tls", "starttls", "--auth"])
        try Shop.run(stock: 10, arguments: Self.mailArguments(sink)) { shop, api in
            let buyer = try shop.customer("mailed")
            let placed = try shop.checkout(buyer, quantity: 2, body: Shop.addressedCheckout)
            let id = try #require(placed["id"] as? String)
            #expect(try shop.deliver(try shop.sign(placed)).status == 200)
            #expect(try api.call("PATCH", "/orders/\(id)", json: #"{"status":"shipped"}"#, token: shop.admin).status == 200)

            let mails = try Self.mails(about: id, in: sink, count: 3)
            let subjects = Set(mails.compactMap { $0["subject"] as? String })
            #expect(subjects == ["Your order \(id) at Tea & <Co>", "Payment received for order \(id)",
                                 "Your order \(id) has shipped"])
            for mail in mails {
                #expect(mail["defects"] as? [String] == [])
                #expect(mail["content_type"] as? String == "multipart/alternative")
                let from = try #require((mail["from"] as? [[String: Any]])?.first)
                #expect(from["address"] as? String == "shop@example.com")
                #expect(from["name"] as? String == "Tea & <Co>")
                let to = try #require((mail["to"] as? [[String: Any]])?.first)
                #expect(to["address"] as? String == "mailed@example.com")
                #expect(to["name"] as? String == "mailed")
                let messageID = try #require(mail["message_id"] as? String)
                #expect(messageID.wholeMatch(of: /<job-[0-9]+\.(order|payment)-mail@example\.com>/) != nil)
                // Both parts carry the order; the HTML escapes what it shows.
                let text = Self.part(mail, "text/plain"), html = Self.part(mail, "text/html")
                #expect(text.contains(id) && html.contains(id))
                #expect(text.contains("https://shop.example/orders/\(id)"))
                #expect(html.contains(#"href="https://shop.example/orders/\#(id)""#))
                #expect(text.contains("Tea & <Co>") && html.contains("Tea &amp; &lt;Co&gt;") && !html.contains("<Co>"))
            }
            let placedMail = try #require(mails.first { ($0["subject"] as? String)?.hasPrefix("Your order") == true
                && ($0["subject"] as? String)?.hasSuffix("<Co>") == true })
            #expect(Self.part(placedMail, "text/plain").contains("2 × Kettle  80.00 USD"))
            #expect(Self.part(placedMail, "text/plain").contains("Total: 80.00 USD"))
            #expect(Self.part(placedMail, "text/plain").contains("Calle Mayor 1"))
            let received = try #require(mails.first { ($0["subject"] as? String)?.hasPrefix("Payment received") == true })
            #expect(Self.part(received, "text/plain").contains("We received 80.00 USD"))
            #expect(Self.part(received, "text/plain").contains("paid in full"))
            // Over TLS, signed in, each mail its own job.
            let accepted = try sink.accepted()
            #expect(accepted.allSatisfy { $0.overTLS && $0.authenticated })
            #expect(Set(mails.compactMap { $0["message_id"] as? String }).count == 3)
            let jobs = try #require(api.object(try api.call("GET", "/admin/jobs?kind=order.mail", token: shop.admin))["items"]
                as? [[String: Any]])
            #expect(jobs.count == 2)
            #expect(jobs.allSatisfy { $0["state"] as? String == "succeeded" })
        }
    }

    @Test func aDeclinedPaymentAndABankTransferSayHowToPay() throws {
        let sink = try SMTPSink(["--tls", "starttls", "--auth"])
        try Shop.run(stock: 10, arguments: Self.mailArguments(sink)) { shop, api in
            let buyer = try shop.customer("declined")
            let declined = try shop.checkout(buyer)
            let id = try #require(declined["id"] as? String)
            #expect(try shop.deliver(try shop.sign(declined, type: "payment.failed")).status == 200)
            let failed = try #require(try Self.mails(about: id, in: sink, count: 2)
                .first { ($0["subject"] as? String)?.contains("did not go through") == true })
            #expect(Self.part(failed, "text/plain").contains("pay again before then"))

            let transfer = try shop.checkout(buyer, body: #"{"payment_method":"bank_transfer"}"#)
            let transferID = try #require(transfer["id"] as? String)
            let awaited = try #require(try Self.mails(about: transferID, in: sink, count: 2)
                .first { ($0["subject"] as? String)?.contains("awaiting your bank transfer") == true })
            #expect(Self.part(awaited, "text/plain").contains("Please transfer 40.00 USD with the reference"))
            #expect(Self.part(awaited, "text/plain").contains("  \(transferID)\n"))
        }
    }

    @Test func anSMTPServerThatDefersGetsTheMailOnTheNextAttempt() throws {
        let sink = try SMTPSink(["--tls", "starttls", "--auth", "--defer", "1"])
        try Shop.run(stock: 10, arguments: Self.mailArguments(sink)) { shop, api in
            let buyer = try shop.customer("deferred")
            let placed = try shop.checkout(buyer)
            let id = try #require(placed["id"] as? String)
            let mails = try Self.mails(about: id, in: sink, count: 1)
            #expect(mails.count == 1)
            let jobs = try #require(api.object(try api.call("GET", "/admin/jobs?kind=order.mail", token: shop.admin))["items"]
                as? [[String: Any]])
            let job = try #require(jobs.first)
            #expect(job["state"] as? String == "succeeded")
            #expect(job["attempts"] as? Int == 2)
            #expect((job["last_error"] as? String)?.contains("451") == true)
        }
    }

    @Test func withoutSMTPSettingsNoMailIsQueuedAndStartUpSaysSo() throws {
        try Shop.run(stock: 10) { shop, api in
            #expect(shop.server.log.contains { $0.contains(#""event":"mail_off""#) })
            let buyer = try shop.customer("unmailed")
            let placed = try shop.checkout(buyer)
            #expect(try shop.deliver(try shop.sign(placed)).status == 200)
            for kind in ["order.mail", "payment.mail", "account.mail"] {
                let jobs = try #require(api.object(try api.call("GET", "/admin/jobs?kind=\(kind)", token: shop.admin))["items"]
                    as? [[String: Any]])
                #expect(jobs.isEmpty, "\(kind) jobs were queued with mail off")
            }
        }
    }
}
