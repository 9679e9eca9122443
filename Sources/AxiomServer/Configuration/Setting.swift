/// One configuration key: its name in every source (file key `max_body_bytes`,
/// environment `AXIOM_MAX_BODY_BYTES`, flag `--max-body-bytes`), what it
/// accepts, and how it reads from and writes to ``ServerOptions``.
struct Setting: Sendable {
    let key: String
    /// The accepted values, as a refusal message states them.
    let accepted: String
    let help: String
    let apply: @Sendable (inout ServerOptions, ConfigValue) throws -> Void
    /// The value in effect, as the configuration file would write it.
    let current: @Sendable (ServerOptions) -> JSONValue

    var flag: String { "--" + String(key.map { $0 == "_" ? "-" : $0 }) }
    var environmentName: String { "AXIOM_" + key.uppercased() }

    static func refusal(_ key: String, _ accepted: String, _ value: ConfigValue) -> ConfigurationError {
        ConfigurationError("\(key) must be \(accepted); got \(value.shown) (\(value.source))")
    }
}

/// Why start-up stopped: names the key, the accepted values and the source.
struct ConfigurationError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

// MARK: Kinds of settings

/// The option a setting reads into and writes back from.
typealias Option<T> = WritableKeyPath<ServerOptions, T> & Sendable

extension Setting {
    /// What every kind shares: `read` makes the option's value of a setting
    /// value (nil: refused, naming `accepted`), `written` shows the option's
    /// value as the configuration file would hold it.
    private static func kind<T>(_ key: String, accepted: String, help: String, _ option: Option<T>,
                                read: @escaping @Sendable (ConfigValue) -> T?,
                                written: @escaping @Sendable (T) -> JSONValue) -> Setting {
        Setting(key: key, accepted: accepted, help: help,
                apply: { options, value in
                    guard let parsed = read(value) else { throw refusal(key, accepted, value) }
                    options[keyPath: option] = parsed
                },
                current: { written($0[keyPath: option]) })
    }

    static func integer(_ key: String, in range: ClosedRange<Int>, help: String, _ option: Option<Int>) -> Setting {
        kind(key, accepted: "an integer in \(range.lowerBound)...\(range.upperBound)", help: help, option,
             read: { $0.integer.flatMap { range.contains($0) ? $0 : nil } }, written: { .integer($0) })
    }

    /// An integer that may be absent (`null` in the file, unset elsewhere).
    static func optionalInteger(_ key: String, in range: ClosedRange<Int>, help: String,
                                _ option: Option<Int?>) -> Setting {
        kind(key, accepted: "an integer in \(range.lowerBound)...\(range.upperBound) or null", help: help, option,
             read: { value -> Int?? in
                 if value.isNull { return .some(nil) }
                 guard let number = value.integer, range.contains(number) else { return .none }
                 return number
             },
             written: { $0.map { .integer($0) } ?? .null })
    }

    /// A duration in seconds: more than 0, at most `max`; fractions allowed.
    static func seconds(_ key: String, max: Double = 86_400, help: String, _ option: Option<Double>) -> Setting {
        kind(key, accepted: "a number of seconds greater than 0 and at most \(Int(max))", help: help, option,
             read: { $0.number.flatMap { $0.isFinite && $0 > 0 && $0 <= max ? $0 : nil } },
             written: { $0 == $0.rounded() ? .integer(Int($0)) : .number($0) })
    }

    /// A string that `check` accepts.
    static func text(_ key: String, accepted: String, help: String, check: @escaping @Sendable (String) -> Bool,
                     _ option: Option<String>) -> Setting {
        kind(key, accepted: accepted, help: help, option,
             read: { $0.text.flatMap { check($0) ? $0 : nil } }, written: { .string($0) })
    }

    /// A list: comma-separated text anywhere, or in the configuration file
    /// also a JSON array of strings. `check` is asked of the list as
    /// comma-separated text, which is how it is kept.
    static func list(_ key: String, accepted: String, help: String, check: @escaping @Sendable (String) -> Bool,
                     _ option: Option<String>) -> Setting {
        kind(key, accepted: accepted + " (in the file also a JSON array of strings)", help: help, option,
             read: { value in
                 let text: String?
                 if case .json(.array(let items)) = value.payload {
                     let strings = items.compactMap { item -> String? in
                         guard case .string(let string) = item, !string.isEmpty, !string.contains(",") else { return nil }
                         return string
                     }
                     text = strings.count == items.count ? strings.joined(separator: ",") : nil
                 } else {
                     text = value.text
                 }
                 return text.flatMap { check($0) ? $0 : nil }
             },
             written: { .string($0) })
    }

    /// On or off: `true`/`false` in the file, also `1`/`0`, `on`/`off` elsewhere.
    static func boolean(_ key: String, help: String, _ option: Option<Bool>) -> Setting {
        kind(key, accepted: "true or false", help: help, option,
             read: { value in
                 switch value.payload {
                 case .json(.bool(let flag)): flag
                 case .text(let text) where ["true", "1", "on"].contains(text.lowercased()): true
                 case .text(let text) where ["false", "0", "off"].contains(text.lowercased()): false
                 default: nil
                 }
             },
             written: { .bool($0) })
    }

    /// A string that may be absent (`null` in the file, unset elsewhere).
    static func optionalText(_ key: String, help: String, _ option: Option<String?>) -> Setting {
        kind(key, accepted: "a non-empty string or null", help: help, option,
             read: { value -> String?? in
                 if value.isNull { return .some(nil) }
                 guard let text = value.text, !text.isEmpty else { return .none }
                 return text
             },
             written: { $0.map { .string($0) } ?? .null })
    }
}

extension ConfigValue {
    /// The value as a string, if it is one (any text from env/flags; a JSON string from the file).
    var text: String? {
        switch payload {
        case .text(let text): text
        case .json(.string(let text)): text
        case .json: nil
        }
    }

    /// The value as an integer: text that reads as one, or a JSON integer.
    var integer: Int? {
        switch payload {
        case .text(let text): Int(text)
        case .json(.integer(let integer)): integer
        case .json: nil
        }
    }

    /// The value as a number: text that reads as one, or a JSON integer or number.
    var number: Double? {
        switch payload {
        case .text(let text): Double(text)
        case .json(.integer(let integer)): Double(integer)
        case .json(.number(let number)): number
        case .json: nil
        }
    }

    /// `null` in the configuration file.
    var isNull: Bool {
        if case .json(.null) = payload { return true }
        return false
    }
}
