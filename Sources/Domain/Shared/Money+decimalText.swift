extension Money {
    /// The amount as a person reads it, in major units with the currency's
    /// minor-unit digits: `59.97 USD` for 5997 minor units, `5997 JPY`.
    /// Messages say this; the API's numbers stay in minor units.
    public var decimalText: String {
        let digits = currency.minorUnitDigits
        let magnitude = amount.magnitude
        var text = String(magnitude)
        if digits > 0 {
            if text.count <= digits { text = String(repeating: "0", count: digits - text.count + 1) + text }
            text.insert(".", at: text.index(text.endIndex, offsetBy: -digits))
        }
        return (amount < 0 ? "-" : "") + text + " " + currency.code
    }
}
