/// Reads `Accept-Encoding` (RFC 9110 12.5.3) for the one coding we offer.
enum AcceptEncoding {
    /// Whether gzip is acceptable: listed (or `*`, or `x-gzip`) with a
    /// q-value above 0. `gzip;q=0` refuses it even when `*` allows others.
    /// No field at all means identity only, for us: any coding would be
    /// allowed (12.5.3), but clients that say nothing are usually tools
    /// that would print compressed bytes.
    static func allowsGzip(_ values: [String]) -> Bool {
        var verdict = Verdict()
        for value in values { verdict.read(value) }
        return verdict.allowsGzip
    }

    /// The same, read from the request's fields in place: splitting the
    /// field into members and parameters would cost allocations on every
    /// request that sends it.
    static func allowsGzip(_ headers: HTTPFields) -> Bool {
        var verdict = Verdict()
        for field in headers where HTTPFields.namesMatch(field.name, "accept-encoding") { verdict.read(field.value) }
        return verdict.allowsGzip
    }

    /// What the members read so far say of gzip and of `*`.
    struct Verdict {
        var gzip: Bool?
        var wildcard: Bool?

        var allowsGzip: Bool { gzip ?? wildcard ?? false }

        mutating func read(_ value: String) {
            var value = value
            value.withUTF8 { bytes in
                var start = 0
                while start <= bytes.count {
                    var end = start
                    while end < bytes.count, bytes[end] != UInt8(ascii: ",") { end += 1 }
                    member(bytes, start, end)
                    start = end + 1
                }
            }
        }

        /// `coding *( ";" parameter )` in `bytes[start..<end]`.
        private mutating func member(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) {
            var cut = start
            while cut < end, bytes[cut] != UInt8(ascii: ";") { cut += 1 }
            let coding = Self.trimmed(bytes, start, cut)
            var accepted = true
            var parameter = cut + 1
            while parameter < end {
                var next = parameter
                while next < end, bytes[next] != UInt8(ascii: ";") { next += 1 }
                let (from, to) = Self.trimmed(bytes, parameter, next)
                if to - from >= 2, bytes[from] | 0x20 == UInt8(ascii: "q"), bytes[from + 1] == UInt8(ascii: "=") {
                    accepted = Self.positive(bytes, from + 2, to)
                }
                parameter = next + 1
            }
            if Self.equals(bytes, coding, "gzip") || Self.equals(bytes, coding, "x-gzip") {
                gzip = accepted
            } else if Self.equals(bytes, coding, "*") {
                wildcard = accepted
            }
        }

        /// A qvalue above 0 (12.4.2: `0[.000]` to `1[.000]`): digits and one
        /// dot, at least one digit not 0. Anything else counts as 0.
        private static func positive(_ bytes: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> Bool {
            guard from < to else { return false }
            var nonZero = false
            var dots = 0
            for index in from..<to {
                switch bytes[index] {
                case UInt8(ascii: "0"): break
                case UInt8(ascii: "1")...UInt8(ascii: "9"): nonZero = true
                case UInt8(ascii: "."): dots += 1
                default: return false
                }
            }
            return nonZero && dots <= 1
        }

        private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> (Int, Int) {
            var (from, to) = (start, end)
            while from < to, bytes[from] == UInt8(ascii: " ") || bytes[from] == UInt8(ascii: "\t") { from += 1 }
            while to > from, bytes[to - 1] == UInt8(ascii: " ") || bytes[to - 1] == UInt8(ascii: "\t") { to -= 1 }
            return (from, to)
        }

        /// Case-insensitive equality with a lowercase ASCII token.
        private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ range: (Int, Int), _ token: StaticString) -> Bool {
            guard range.1 - range.0 == token.utf8CodeUnitCount else { return false }
            let expected = token.utf8Start
            for offset in 0..<token.utf8CodeUnitCount {
                let byte = bytes[range.0 + offset]
                let folded = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
                if folded != expected[offset] { return false }
            }
            return true
        }
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
