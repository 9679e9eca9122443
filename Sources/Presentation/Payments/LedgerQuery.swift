import Domain
import HTTPServer

/// `GET /payments/ledger?from=…&to=…&limit=…&cursor=…`: movements recorded
/// in `[from, to)` (RFC 3339; from the beginning, to the end of time when
/// absent), keyset paged by (recorded_at, id): the cursor is the last
/// entry's `<recorded_at ms>.<id>`, opaque to the caller. No other
/// parameter is taken.
struct LedgerQuery {
    let from: Timestamp
    let to: Timestamp
    let page: PageRequest
    let position: (Timestamp, Int64)?

    static func from(_ request: HTTPRequest) throws -> LedgerQuery {
        try KnownQuery.require(request, only: ["limit", "cursor", "from", "to"])
        let page = try PageRequest.from(request)
        var errors: [FieldError] = []
        func time(_ name: String, default value: Int64) -> Timestamp {
            guard let text = request.query[name] else { return Timestamp(millisecondsSince1970: value) }
            guard let parsed = Timestamp(rfc3339: text) else {
                errors.append(FieldError(field: name, code: .invalidFormat, message: "\(name) must be an RFC 3339 time"))
                return Timestamp(millisecondsSince1970: value)
            }
            return parsed
        }
        let from = time("from", default: 0), to = time("to", default: Int64.max)
        let position = page.cursor.flatMap(cursorPosition)
        if page.cursor != nil && position == nil {
            errors.append(FieldError(field: "cursor", code: .invalidFormat, message: "cursor is not one this service issued"))
        }
        guard errors.isEmpty else { throw ValidationError(errors) }
        return LedgerQuery(from: from, to: to, page: page, position: position)
    }

    static func cursor(after entry: LedgerEntry) -> String {
        "\(entry.recordedAt.millisecondsSince1970).\(entry.id)"
    }

    private static func cursorPosition(_ text: String) -> (Timestamp, Int64)? {
        let parts = text.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, let milliseconds = Int64(parts[0]), let id = Int64(parts[1]) else { return nil }
        return (Timestamp(millisecondsSince1970: milliseconds), id)
    }
}
