import HTTPServer

/// `If-Match` on a write (RFC 9110 13.1.1) and the `ETag` of its answer.
/// The tag is the strong tag of the resource's identity-coded JSON, the
/// one `GET` answers with (the exchange policies add `-gzip` for the
/// compressed coding; both are accepted here), so a client does GET, then
/// the write with that ETag. The handler only states how its resource is
/// written as JSON; the comparison itself happens in the context and the
/// client's write (the state seen when the tag matched must still be the
/// state when the change commits), so two writers holding one tag cannot
/// both succeed.
enum ConditionalWrite {
    /// The condition the request's `If-Match` puts on the current state,
    /// nil when there is none. `*` is nil too: it asks for any current
    /// representation, and every resource written here has one (a product
    /// that is gone is `product_not_found`, which 13.2.1 puts first).
    static func condition<Value>(_ request: HTTPRequest,
                                 representation: @escaping @Sendable (Value) throws -> [UInt8])
        -> (@Sendable (Value) -> Bool)? {
        condition(request, representations: { [try representation($0)] })
    }

    /// The same for a resource served in several representations (a
    /// product: the admins' document and the storefront's): a tag of any
    /// of them names the state it was read in.
    static func condition<Value>(_ request: HTTPRequest,
                                 representations: @escaping @Sendable (Value) throws -> [[UInt8]])
        -> (@Sendable (Value) -> Bool)? {
        let values = request.headers.values(for: "if-match")
        guard !values.isEmpty else { return nil }
        if values.allSatisfy({ $0.split(separator: ",").allSatisfy { $0.filter { $0 != " " && $0 != "\t" } == "*" } }) {
            return nil
        }
        return { value in
            guard let documents = try? representations(value) else { return false }
            return documents.contains { EntityTag.matchHits(values, tag: EntityTag.of($0)) }
        }
    }

    /// A 200 with `bytes` as JSON and their strong `ETag`: the new state's
    /// validator, for the next conditional write.
    static func response(_ bytes: [UInt8]) -> HTTPResponse {
        .json(.ok, bytes, headers: ["ETag": EntityTag.of(bytes)])
    }
}
