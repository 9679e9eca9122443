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

extension Setting {
    static func integer(_ key: String, in range: ClosedRange<Int>, help: String,
                        get: @escaping @Sendable (ServerOptions) -> Int,
                        set: @escaping @Sendable (inout ServerOptions, Int) -> Void) -> Setting {
        let accepted = "an integer in \(range.lowerBound)...\(range.upperBound)"
        return Setting(key: key, accepted: accepted, help: help,
                          apply: { options, value in
                              let number: Int?
                              switch value.payload {
                              case .text(let text): number = Int(text)
                              case .json(.integer(let integer)): number = integer
                              case .json: number = nil
                              }
                              guard let number, range.contains(number) else { throw refusal(key, accepted, value) }
                              set(&options, number)
                          },
                          current: { .integer(get($0)) })
    }

    /// An integer that may be absent (`null` in the file, unset elsewhere).
    static func optionalInteger(_ key: String, in range: ClosedRange<Int>, help: String,
                                get: @escaping @Sendable (ServerOptions) -> Int?,
                                set: @escaping @Sendable (inout ServerOptions, Int?) -> Void) -> Setting {
        let accepted = "an integer in \(range.lowerBound)...\(range.upperBound) or null"
        return Setting(key: key, accepted: accepted, help: help,
                       apply: { options, value in
                           let number: Int?
                           switch value.payload {
                           case .json(.null):
                               set(&options, nil)
                               return
                           case .text(let text): number = Int(text)
                           case .json(.integer(let integer)): number = integer
                           case .json: number = nil
                           }
                           guard let number, range.contains(number) else { throw refusal(key, accepted, value) }
                           set(&options, number)
                       },
                       current: { options in get(options).map { .integer($0) } ?? .null })
    }

    /// A duration in seconds: more than 0, at most `max`; fractions allowed.
    static func seconds(_ key: String, max: Double = 86_400, help: String,
                        get: @escaping @Sendable (ServerOptions) -> Double,
                        set: @escaping @Sendable (inout ServerOptions, Double) -> Void) -> Setting {
        let accepted = "a number of seconds greater than 0 and at most \(Int(max))"
        return Setting(key: key, accepted: accepted, help: help,
                          apply: { options, value in
                              let number: Double?
                              switch value.payload {
                              case .text(let text): number = Double(text)
                              case .json(.integer(let integer)): number = Double(integer)
                              case .json(.number(let double)): number = double
                              case .json: number = nil
                              }
                              guard let number, number.isFinite, number > 0, number <= max else {
                                  throw refusal(key, accepted, value)
                              }
                              set(&options, number)
                          },
                          current: { options in
                              let seconds = get(options)
                              return seconds == seconds.rounded() ? .integer(Int(seconds)) : .number(seconds)
                          })
    }

    /// A string that `check` accepts.
    static func text(_ key: String, accepted: String, help: String, check: @escaping @Sendable (String) -> Bool,
                     get: @escaping @Sendable (ServerOptions) -> String,
                     set: @escaping @Sendable (inout ServerOptions, String) -> Void) -> Setting {
        return Setting(key: key, accepted: accepted, help: help,
                          apply: { options, value in
                              guard let text = value.text, check(text) else { throw refusal(key, accepted, value) }
                              set(&options, text)
                          },
                          current: { .string(get($0)) })
    }

    /// A list: comma-separated text anywhere, or in the configuration file
    /// also a JSON array of strings. `check` is asked of the list as
    /// comma-separated text, which is how it is kept.
    static func list(_ key: String, accepted: String, help: String, check: @escaping @Sendable (String) -> Bool,
                     get: @escaping @Sendable (ServerOptions) -> String,
                     set: @escaping @Sendable (inout ServerOptions, String) -> Void) -> Setting {
        let accepted = accepted + " (in the file also a JSON array of strings)"
        return Setting(key: key, accepted: accepted, help: help,
                       apply: { options, value in
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
                           guard let text, check(text) else { throw refusal(key, accepted, value) }
                           set(&options, text)
                       },
                       current: { .string(get($0)) })
    }

    /// On or off: `true`/`false` in the file, also `1`/`0`, `on`/`off` elsewhere.
    static func boolean(_ key: String, help: String,
                        get: @escaping @Sendable (ServerOptions) -> Bool,
                        set: @escaping @Sendable (inout ServerOptions, Bool) -> Void) -> Setting {
        let accepted = "true or false"
        return Setting(key: key, accepted: accepted, help: help,
                       apply: { options, value in
                           switch value.payload {
                           case .json(.bool(let flag)): set(&options, flag)
                           case .text(let text) where ["true", "1", "on"].contains(text.lowercased()): set(&options, true)
                           case .text(let text) where ["false", "0", "off"].contains(text.lowercased()): set(&options, false)
                           default: throw refusal(key, accepted, value)
                           }
                       },
                       current: { .bool(get($0)) })
    }

    /// A string that may be absent (`null` in the file, unset elsewhere).
    static func optionalText(_ key: String, help: String,
                             get: @escaping @Sendable (ServerOptions) -> String?,
                             set: @escaping @Sendable (inout ServerOptions, String?) -> Void) -> Setting {
        let accepted = "a non-empty string or null"
        return Setting(key: key, accepted: accepted, help: help,
                          apply: { options, value in
                              if case .json(.null) = value.payload {
                                  set(&options, nil)
                                  return
                              }
                              guard let text = value.text, !text.isEmpty else { throw refusal(key, accepted, value) }
                              set(&options, text)
                          },
                          current: { options in get(options).map { .string($0) } ?? .null })
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
}
