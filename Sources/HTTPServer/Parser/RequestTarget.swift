/// Splits and percent-decodes a request-target (RFC 9112 3.2): origin-form
/// `/path?query`, absolute-form `http://host/path?query` (accepted as RFC
/// 9112 3.2.2 requires of servers, without userinfo), and asterisk-form `*`
/// for OPTIONS.
struct RequestTarget: Equatable {
    var path: String
    var segments: [String]
    var query: [(name: String, value: String)]

    static func == (lhs: RequestTarget, rhs: RequestTarget) -> Bool {
        lhs.path == rhs.path && lhs.segments == rhs.segments
            && lhs.query.map(\.name) == rhs.query.map(\.name) && lhs.query.map(\.value) == rhs.query.map(\.value)
    }

    /// The asterisk-form target, meaning "the server as a whole".
    static let asterisk = RequestTarget(path: "*", segments: [], query: [])

    static func parse(_ target: String) throws(HTTPParseError) -> RequestTarget {
        var utf8 = Substring(target).utf8[...]
        if target == "*" { return .asterisk }
        if target.utf8.contains(UInt8(ascii: "#")) { throw .badRequest("A request target must not carry a fragment.") }
        if utf8.first != UInt8(ascii: "/") {
            // absolute-form: scheme "://" authority path-abempty [ "?" query ]
            let lowered = ASCII.lowercased(target.prefix(8))
            let schemeLength: Int
            if lowered.hasPrefix("http://") { schemeLength = 7 } else if lowered.hasPrefix("https://") { schemeLength = 8 } else {
                throw .badRequest("The request target must be a path, an absolute http(s) URI, or '*'.")
            }
            utf8 = utf8.dropFirst(schemeLength)
            let authorityEnd = utf8.firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") })
                ?? utf8.endIndex
            let authority = utf8[..<authorityEnd]
            guard !authority.isEmpty else { throw .badRequest("The absolute URI has an empty authority.") }
            // RFC 9110 4.2.4: userinfo is forbidden in http(s) URIs; a
            // recipient treats its presence as an error.
            if authority.contains(UInt8(ascii: "@")) {
                throw .badRequest("The absolute URI must not carry userinfo.")
            }
            guard authorityEnd < utf8.endIndex else { return RequestTarget(path: "/", segments: [], query: []) }
            utf8 = utf8[authorityEnd...]
            if utf8.first == UInt8(ascii: "?") {
                return RequestTarget(path: "/", segments: [], query: try parseQuery(Substring(utf8.dropFirst())))
            }
        }
        // By bytes, not Characters: `?` is ASCII, and a Character search
        // walks grapheme boundaries on every request.
        let question = utf8.firstIndex(of: UInt8(ascii: "?"))
        let pathPart = Substring(utf8[..<(question ?? utf8.endIndex)])
        let queryPart = question.map { Substring(utf8[utf8.index(after: $0)...]) }
        if queryPart == nil, !pathPart.utf8.contains(UInt8(ascii: "%")) {
            // The common case, a plain path: nothing to decode, and an
            // origin-form target is its own path (shared, not copied).
            let path = utf8.startIndex == target.utf8.startIndex ? target : String(pathPart)
            return RequestTarget(path: path, segments: plainSegments(pathPart), query: [])
        }
        let rawSegments = pathPart.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        var segments: [String] = []
        segments.reserveCapacity(rawSegments.count)
        for raw in rawSegments { segments.append(try percentDecode(raw, plusIsSpace: false)) }
        // A trailing slash yields a final empty segment; "/" alone has none.
        if segments.count == 1 && segments[0].isEmpty { segments = [] }
        let path = try percentDecode(pathPart, plusIsSpace: false)
        return RequestTarget(path: path, segments: segments, query: try queryPart.map(parseQuery) ?? [])
    }

    /// The segments of a path with nothing to decode, in one array sized
    /// up front (`/a/b` → `a`, `b`; `/` → none; a trailing slash gives a
    /// final empty segment): `split` then `map` built two arrays.
    private static func plainSegments(_ path: Substring) -> [String] {
        let bytes = path.utf8
        guard bytes.count > 1 else { return [] }
        let slash = UInt8(ascii: "/")
        var segments: [String] = []
        segments.reserveCapacity(bytes.reduce(0) { $1 == slash ? $0 + 1 : $0 })
        var start = bytes.index(after: bytes.startIndex)
        var index = start
        while index < bytes.endIndex {
            if bytes[index] == slash {
                segments.append(String(Substring(bytes[start..<index])))
                start = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        segments.append(String(Substring(bytes[start...])))
        return segments
    }

    private static func parseQuery(_ query: Substring) throws(HTTPParseError) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        for item in query.split(separator: "&") {
            if let equals = item.firstIndex(of: "=") {
                pairs.append((try percentDecode(item[..<equals], plusIsSpace: true, allowsNUL: true),
                              try percentDecode(item[item.index(after: equals)...], plusIsSpace: true, allowsNUL: true)))
            } else {
                pairs.append((try percentDecode(item, plusIsSpace: true, allowsNUL: true), ""))
            }
        }
        return pairs
    }

    /// Decodes `%XX` escapes; refuses malformed escapes and byte sequences
    /// that are not UTF-8 (they could not round-trip as Strings). NUL is
    /// refused in paths (it would cut a path short wherever it reaches C) but
    /// allowed in query values, which are only ever compared as Strings.
    static func percentDecode(_ text: Substring, plusIsSpace: Bool,
                              allowsNUL: Bool = false) throws(HTTPParseError) -> String {
        let utf8 = text.utf8
        if !utf8.contains(UInt8(ascii: "%")) && !(plusIsSpace && utf8.contains(UInt8(ascii: "+"))) {
            return String(text)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%") {
                let high = utf8.index(after: index)
                guard high < utf8.endIndex, utf8.index(after: high) < utf8.endIndex,
                      let h = ASCII.hexValue(utf8[high]), let l = ASCII.hexValue(utf8[utf8.index(after: high)])
                else { throw .badRequest("The request target has a malformed percent-encoding.") }
                let decoded = h << 4 | l
                guard decoded != 0 || allowsNUL else { throw .badRequest("The request target encodes a NUL byte.") }
                bytes.append(decoded)
                index = utf8.index(high, offsetBy: 2)
            } else {
                bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index = utf8.index(after: index)
            }
        }
        guard let string = String(validating: bytes, as: UTF8.self) else {
            throw .badRequest("The request target decodes to bytes that are not UTF-8.")
        }
        return string
    }
}
