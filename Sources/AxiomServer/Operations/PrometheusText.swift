/// Writes the Prometheus text exposition format (0.0.4): for each metric
/// family a `# HELP` and `# TYPE` line, then its samples, label values
/// escaped as the format requires.
struct PrometheusText {
    private(set) var text = ""

    mutating func family(_ name: String, _ type: String, _ help: String) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: Double) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { "\($0.0)=\"\(Self.escape($0.1))\"" }.joined(separator: ",") + "}"
        }
        text += " " + Self.format(value) + "\n"
    }

    mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: Int) {
        sample(name, labels, Double(value))
    }

    /// A family of one sample without labels.
    mutating func family(_ name: String, _ type: String, _ help: String, value: Double) {
        family(name, type, help)
        sample(name, [], value)
    }

    mutating func family(_ name: String, _ type: String, _ help: String, value: Int) {
        family(name, type, help, value: Double(value))
    }

    /// A family of one sample per value of one label, in `values`' order.
    mutating func family(_ name: String, _ type: String, _ help: String, by label: String, _ values: [(String, Int)]) {
        family(name, type, help)
        for (labelValue, value) in values { sample(name, [(label, labelValue)], value) }
    }

    /// A histogram's samples from per-bucket (not cumulative) counts, where
    /// `counts` has one entry per bound plus one for values above them all.
    mutating func histogram(_ name: String, _ labels: [(String, String)] = [], bounds: [Double], counts: [UInt64],
                            sum: Double) {
        var cumulative: UInt64 = 0
        for (index, bound) in bounds.enumerated() {
            cumulative += counts[index]
            sample(name + "_bucket", labels + [("le", Self.format(bound))], Double(cumulative))
        }
        let total = counts.reduce(0, +)
        sample(name + "_bucket", labels + [("le", "+Inf")], Double(total))
        sample(name + "_sum", labels, sum)
        sample(name + "_count", labels, Double(total))
    }

    static func escape(_ value: String) -> String {
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
