import Domain

extension TemplateValue {
    /// The tree with a `text` member added to every money object
    /// (`{"amount": 1250, "currency": "EUR"}` gains `"text": "12.50 EUR"`),
    /// so a template shows an amount as people read it.
    func withMoneyText() -> TemplateValue {
        switch self {
        case .array(let items):
            return .array(items.map { $0.withMoneyText() })
        case .object(var members):
            for (name, value) in members { members[name] = value.withMoneyText() }
            if members.count == 2, case .number(let amount)? = members["amount"], let minor = Int64(amount),
               case .string(let code)? = members["currency"], let currency = try? Currency(code) {
                members["text"] = .string(Money(amount: minor, currency: currency).decimalText)
            }
            return .object(members)
        default:
            return self
        }
    }
}
