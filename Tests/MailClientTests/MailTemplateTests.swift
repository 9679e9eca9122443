import Foundation
@testable import MailClient
import Testing

@Suite("Mail templates")
struct MailTemplateTests {
    func values(_ json: String) throws -> TemplateValue {
        try #require(TemplateValue(json: Array(json.utf8)))
    }

    func render(_ template: String, _ json: String, escaping: MailTemplate.Escaping = .none) throws -> String {
        try MailTemplate(parsing: template, name: "test").render(try values(json).withMoneyText(), escaping: escaping)
    }

    @Test("names, dotted paths, numbers and booleans are put in place; a missing name puts nothing")
    func values() throws {
        #expect(try render("Hi {{user.name}}, order {{order.id}} has {{order.count}} items ({{order.paid}}){{nope.x}}.",
                           #"{"user":{"name":"Ann"},"order":{"id":"o-1","count":3,"paid":true}}"#)
                == "Hi Ann, order o-1 has 3 items (true).")
    }

    @Test("the HTML part escapes every value; {{{triple}}} and the text part do not")
    func escaping() throws {
        let json = #"{"name":"<b>Tom & \"Jerry\"</b>'s"}"#
        #expect(try render("<p>{{name}}</p>", json, escaping: .html)
                == "<p>&lt;b&gt;Tom &amp; &quot;Jerry&quot;&lt;/b&gt;&#39;s</p>")
        #expect(try render("<p>{{{name}}}</p>", json, escaping: .html) == "<p><b>Tom & \"Jerry\"</b>'s</p>")
        #expect(try render("{{name}}", json) == "<b>Tom & \"Jerry\"</b>'s")
    }

    @Test("a section repeats per item with the item innermost, outer names still found; an inverted one shows for empty")
    func sections() throws {
        let json = #"{"currency":"EUR","items":[{"name":"Mug","quantity":2},{"name":"Pen","quantity":1}],"none":[]}"#
        #expect(try render("{{#items}}{{quantity}}× {{name}} in {{currency}}; {{/items}}{{^none}}nothing{{/none}}", json)
                == "2× Mug in EUR; 1× Pen in EUR; nothing")
        #expect(try render("{{#currency}}[{{.}}]{{/currency}}{{#missing}}x{{/missing}}{{^missing}}y{{/missing}}", json)
                == "[EUR]y")
    }

    @Test("money objects gain a text member in their currency's minor units")
    func money() throws {
        #expect(try render("{{total.text}} / {{yen.text}}",
                           #"{"total":{"amount":1250,"currency":"EUR"},"yen":{"amount":1250,"currency":"JPY"}}"#)
                == "12.50 EUR / 1250 JPY")
    }

    @Test("unclosed tags and sections, and a stray closing tag, are errors naming the template")
    func syntaxErrors() throws {
        for broken in ["{{name", "{{#items}}x", "x{{/items}}", "{{#a}}{{/b}}", "{{}}"] {
            #expect(throws: MailTemplateError.self) { try MailTemplate(parsing: broken, name: "broken") }
        }
        #expect(TemplateValue(json: Array("{\"a\":".utf8)) == nil)
    }

    @Test("a directory's sets are loaded with overrides per file; the subject is one line")
    func directoryWithOverrides() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("mail-\(UUID())")
        defer { try? FileManager.default.removeItem(at: root) }
        let shipped = root.appendingPathComponent("shipped/order")
        let overrides = root.appendingPathComponent("overrides/order")
        try FileManager.default.createDirectory(at: shipped, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: overrides, withIntermediateDirectories: true)
        try "Order {{id}}\nplaced\n".write(to: shipped.appendingPathComponent("placed.subject"), atomically: true, encoding: .utf8)
        try "shipped text {{id}}".write(to: shipped.appendingPathComponent("placed.txt"), atomically: true, encoding: .utf8)
        try "<p>{{id}}</p>".write(to: shipped.appendingPathComponent("placed.html"), atomically: true, encoding: .utf8)
        try "operator text {{id}}".write(to: overrides.appendingPathComponent("placed.txt"), atomically: true, encoding: .utf8)
        let templates = try MailTemplates(directory: root.appendingPathComponent("shipped").path,
                                          overrides: root.appendingPathComponent("overrides").path)
        #expect(templates.names == ["order/placed"])
        let mail = try templates.render("order/placed", try values(#"{"id":"<7>"}"#))
        #expect(mail == RenderedMail(subject: "Order <7> placed", text: "operator text <7>", html: "<p>&lt;7&gt;</p>"))
        #expect(throws: MailTemplateError.self) { try templates.render("order/unknown", .null) }
        try FileManager.default.removeItem(at: shipped.appendingPathComponent("placed.html"))
        #expect(throws: MailTemplateError.self) {
            try MailTemplates(directory: root.appendingPathComponent("shipped").path)
        }
    }
}
