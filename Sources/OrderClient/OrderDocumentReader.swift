import Domain

/// Reads exactly the stored order document's shape (`Order`, `OrderLine`,
/// `Money` as their synthesized `Codable` writes them), members in any
/// order, with JSON whitespace and full string escapes. Values go through
/// the parsers the `Decodable` inits use (`OrderID(_:)`, `UserID(_:)`,
/// `Timestamp(rfc3339:)`, `Currency`'s check, `OrderStatus(rawValue:)`);
/// the synthesized `Order`/`OrderLine` inits validate nothing more.
///
/// Every method answers nil for anything it does not fully understand
/// (an unknown or repeated member, a wrong type, a number with a fraction
/// or exponent or out of range, a lone surrogate, invalid UTF-8, trailing
/// bytes): `OrderDocument` then asks `JSONDecoder`, so this reader only
/// has to be right about what it accepts.
struct OrderDocumentReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The whole input as one order document, or nil.
    mutating func document() -> Order? {
        guard let order = order() else { return nil }
        skipWhitespace()
        return index == bytes.count ? order : nil
    }

    private mutating func order() -> Order? {
        var id: OrderID?, userID: UserID?, status: OrderStatus?, lines: [OrderLine]?
        var total: Money?, createdAt: Timestamp?, checkoutID: CheckoutID?, checkoutSeen = false
        var address: ShippingAddress?, addressSeen = false
        let read = object { reader, key in
            switch key {
            case "id":
                guard id == nil, let text = reader.string(), let value = OrderID(text) else { return false }
                id = value
            case "user_id":
                guard userID == nil, let text = reader.string(), let value = UserID(text) else { return false }
                userID = value
            case "status":
                guard status == nil, let text = reader.string(), let value = OrderStatus(rawValue: text) else { return false }
                status = value
            case "items":
                guard lines == nil, let value = reader.lines() else { return false }
                lines = value
            case "total":
                guard total == nil, let value = reader.money() else { return false }
                total = value
            case "created_at":
                guard createdAt == nil, let text = reader.string(), let value = Timestamp(rfc3339: text) else { return false }
                createdAt = value
            case "checkout_id":
                // decodeIfPresent: absent and null both mean none.
                guard !checkoutSeen else { return false }
                checkoutSeen = true
                if reader.null() { return true }
                guard let text = reader.string(), let value = CheckoutID(text) else { return false }
                checkoutID = value
            case "shipping_address":
                guard !addressSeen else { return false }
                addressSeen = true
                if reader.null() { return true }
                guard let value = reader.address() else { return false }
                address = value
            default:
                return false
            }
            return true
        }
        guard read, let id, let userID, let status, let lines, let total, let createdAt else { return nil }
        return Order(id: id, userID: userID, status: status, lines: lines, total: total, createdAt: createdAt,
                     checkoutID: checkoutID, shippingAddress: address)
    }

    private mutating func address() -> ShippingAddress? {
        var name: String?, lines: [String]?, city: String?, postalCode: String?, country: String?
        var phone: String?, email: String?, phoneSeen = false, emailSeen = false
        let read = object { reader, key in
            switch key {
            case "name":
                guard name == nil, let value = reader.string() else { return false }
                name = value
            case "lines":
                guard lines == nil, let value = reader.strings() else { return false }
                lines = value
            case "city":
                guard city == nil, let value = reader.string() else { return false }
                city = value
            case "postal_code":
                guard postalCode == nil, let value = reader.string() else { return false }
                postalCode = value
            case "country":
                guard country == nil, let value = reader.string() else { return false }
                country = value
            case "phone":
                guard !phoneSeen else { return false }
                phoneSeen = true
                if reader.null() { return true }
                guard let value = reader.string() else { return false }
                phone = value
            case "email":
                guard !emailSeen else { return false }
                emailSeen = true
                if reader.null() { return true }
                guard let value = reader.string() else { return false }
                email = value
            default:
                return false
            }
            return true
        }
        guard read, let name, let lines, let city, let postalCode, let country else { return nil }
        return ShippingAddress(name: name, lines: lines, city: city, postalCode: postalCode, country: country,
                               phone: phone, email: email)
    }

    private mutating func strings() -> [String]? {
        skipWhitespace()
        guard take(UInt8(ascii: "[")) else { return nil }
        var strings: [String] = []
        skipWhitespace()
        if take(UInt8(ascii: "]")) { return strings }
        while true {
            skipWhitespace()
            guard let string = string() else { return nil }
            strings.append(string)
            skipWhitespace()
            if take(UInt8(ascii: ",")) { continue }
            return take(UInt8(ascii: "]")) ? strings : nil
        }
    }

    private mutating func lines() -> [OrderLine]? {
        skipWhitespace()
        guard take(UInt8(ascii: "[")) else { return nil }
        var lines: [OrderLine] = []
        skipWhitespace()
        if take(UInt8(ascii: "]")) { return lines }
        while true {
            guard let line = line() else { return nil }
            lines.append(line)
            skipWhitespace()
            if take(UInt8(ascii: ",")) { continue }
            return take(UInt8(ascii: "]")) ? lines : nil
        }
    }

    private mutating func line() -> OrderLine? {
        var productID: ProductID?, name: String?, quantity: Int?, unitPrice: Money?, lineTotal: Money?
        let read = object { reader, key in
            switch key {
            case "product_id":
                guard productID == nil, let text = reader.string(), let value = ProductID(text) else { return false }
                productID = value
            case "name":
                guard name == nil, let value = reader.string() else { return false }
                name = value
            case "quantity":
                guard quantity == nil, let number = reader.integer(), let value = Int(exactly: number) else { return false }
                quantity = value
            case "unit_price":
                guard unitPrice == nil, let value = reader.money() else { return false }
                unitPrice = value
            case "line_total":
                guard lineTotal == nil, let value = reader.money() else { return false }
                lineTotal = value
            default:
                return false
            }
            return true
        }
        guard read, let productID, let name, let quantity, let unitPrice, let lineTotal else { return nil }
        return OrderLine(productID: productID, name: name, quantity: quantity, unitPrice: unitPrice, lineTotal: lineTotal)
    }

    private mutating func money() -> Money? {
        var amount: Int64?, currency: Currency?
        let read = object { reader, key in
            switch key {
            case "amount":
                guard amount == nil, let value = reader.integer() else { return false }
                amount = value
            case "currency":
                guard currency == nil, let text = reader.string(), let value = try? Currency(text) else { return false }
                currency = value
            default:
                return false
            }
            return true
        }
        guard read, let amount, let currency else { return nil }
        return Money(amount: amount, currency: currency)
    }

    // MARK: - JSON syntax

    /// `{ "key": value, … }`, each value read by `member` (positioned at
    /// the value, whitespace skipped); false as soon as anything is off.
    private mutating func object(_ member: (inout OrderDocumentReader, String) -> Bool) -> Bool {
        skipWhitespace()
        guard take(UInt8(ascii: "{")) else { return false }
        skipWhitespace()
        if take(UInt8(ascii: "}")) { return true }
        while true {
            guard let key = string() else { return false }
            skipWhitespace()
            guard take(UInt8(ascii: ":")) else { return false }
            skipWhitespace()
            guard member(&self, key) else { return false }
            skipWhitespace()
            if take(UInt8(ascii: ",")) {
                skipWhitespace()
                continue
            }
            return take(UInt8(ascii: "}"))
        }
    }

    private mutating func null() -> Bool {
        guard index + 4 <= bytes.count, bytes[index] == UInt8(ascii: "n"), bytes[index + 1] == UInt8(ascii: "u"),
              bytes[index + 2] == UInt8(ascii: "l"), bytes[index + 3] == UInt8(ascii: "l") else { return false }
        index += 4
        return true
    }

    /// `-?(0|[1-9][0-9]*)` within Int64. A fraction or exponent (which
    /// JSONDecoder accepts when the value is whole) is left to JSONDecoder.
    private mutating func integer() -> Int64? {
        let negative = take(UInt8(ascii: "-"))
        guard index < bytes.count, let first = digit(bytes[index]) else { return nil }
        index += 1
        // Accumulated negatively so that Int64.min fits.
        var value = -Int64(first)
        while index < bytes.count, let next = digit(bytes[index]) {
            guard first != 0 else { return nil }
            let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times.subtractingReportingOverflow(Int64(next))
            guard !overflowTimes, !overflowSum else { return nil }
            value = sum
            index += 1
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] | 0x20 == UInt8(ascii: "e") {
            return nil
        }
        if negative { return value }
        return value == .min ? nil : -value
    }

    /// A string literal's text. Unescaped text is validated as UTF-8 in
    /// place; escaped text is gathered first.
    private mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        var ascii = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = Self.text(UnsafeBufferPointer(rebasing: bytes[start..<index]), ascii: ascii)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { return escapedString(from: start) }
            guard byte >= 0x20 else { return nil }
            ascii = ascii && byte < 0x80
            index += 1
        }
        return nil
    }

    /// `String(validating:)` instantiates generic metadata on every call;
    /// ASCII needs no check.
    private static func text(_ utf8: UnsafeBufferPointer<UInt8>, ascii: Bool) -> String? {
        ascii ? String(decoding: utf8, as: UTF8.self) : String(validating: utf8, as: UTF8.self)
    }

    private mutating func escapedString(from start: Int) -> String? {
        var text = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return text.withUnsafeBufferPointer { Self.text($0, ascii: !$0.contains { $0 >= 0x80 }) }
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { return nil }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escape)
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = escapedScalar() else { return nil }
                    text.append(contentsOf: UTF8.encode(scalar)!)
                default: return nil
                }
            default:
                guard byte >= 0x20 else { return nil }
                text.append(byte)
            }
        }
        return nil
    }

    /// The scalar of `XXXX` after `\u`, or of a surrogate pair
    /// `XXXX\uYYYY`; nil for a lone surrogate (`Unicode.Scalar(_:)`
    /// refuses a low one).
    private mutating func escapedScalar() -> Unicode.Scalar? {
        guard let unit = hexUnit() else { return nil }
        switch unit {
        case 0xD800...0xDBFF:
            guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                return nil
            }
            index += 2
            guard let low = hexUnit(), (0xDC00...0xDFFF).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00))
        default:
            return Unicode.Scalar(unit)
        }
    }

    private mutating func hexUnit() -> UInt16? {
        guard index + 4 <= bytes.count else { return nil }
        var unit: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let nibble: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            unit = unit << 4 | UInt16(nibble)
            index += 1
        }
        return unit
    }

    private func digit(_ byte: UInt8) -> Int64? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int64(byte - UInt8(ascii: "0")) : nil
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// JSON's four whitespace bytes (RFC 8259 §2).
    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }
}
