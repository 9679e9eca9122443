/// Reads `Accept-Encoding` (RFC 9110 12.5.3) for the one coding we offer.
enum AcceptEncoding {
    /// Whether gzip is acceptable: listed (or `*`, or `x-gzip`) with a
    /// q-value above 0. `gzip;q=0` refuses it even when `*` allows others.
    /// No field at all means identity only, for us: any coding would be
    /// allowed (12.5.3), but clients that say nothing are usually tools
    /// that would print compressed bytes.
    static func allowsGzip(_ values: [String]) -> Bool {
        var gzip: Bool?
        var wildcard: Bool?
        for value in values {
            for member in value.split(separator: ",") {
                let parts = member.split(separator: ";")
                guard let first = parts.first else { continue }
                let coding = first.trimmingSpaces.lowercased()
                var accepted = true
                for parameter in parts.dropFirst() {
                    let pair = parameter.trimmingSpaces.lowercased()
                    guard pair.hasPrefix("q=") else { continue }
                    // qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ) (12.4.2)
                    accepted = (Double(pair.dropFirst(2)) ?? 0) > 0
                }
                switch coding {
                case "gzip", "x-gzip": gzip = accepted
                case "*": wildcard = accepted
                default: break
                }
            }
        }
        return gzip ?? wildcard ?? false
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
