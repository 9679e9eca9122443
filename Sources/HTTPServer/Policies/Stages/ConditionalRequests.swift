/// A 2xx answer of a route with a caching policy: its `Cache-Control`
/// unless the handler set one, an `ETag` on a read's 200 (the handler's own,
/// or the body's hash when the route asks for one; the gzip variant when
/// the body goes out gzip-coded, RFC 9110 8.8.3), and a 304 when
/// `If-None-Match` hits it (13.2.2: evaluated for a 2xx answer to a GET or
/// HEAD; nothing is compressed for it).
struct ConditionalRequests: ResponseStage {
    func apply(to exit: inout ResponseExit, terms: ExchangeTerms) {
        guard let policy = terms.policy, (200..<300).contains(exit.response.status.code) else { return }
        if let cacheControl = policy.cacheControl, !exit.response.headers.contains("cache-control") {
            exit.fields.cacheControl = cacheControl
        }
        guard case .bytes(let body) = exit.response.body, exit.response.status == .ok, terms.isRead else { return }
        if let tag = exit.response.headers["etag"] {
            if exit.gzip { exit.response.headers.set("ETag", EntityTag.gzipVariant(of: tag)) }
        } else if policy.entityTag {
            let tag = EntityTag.of(body)
            exit.response.headers.set("ETag", exit.gzip ? EntityTag.gzipVariant(of: tag) : tag)
        }
        if let sent = exit.response.headers["etag"], !terms.ifNoneMatch.isEmpty,
           EntityTag.noneMatchHits(terms.ifNoneMatch, tag: sent) {
            exit.response = Self.notModified(exit.response)
            exit.gzip = false
        }
    }

    /// RFC 9110 15.4.5: a 304 carries the fields a 200 would have had among
    /// Cache-Control, Content-Location, Date, ETag, Expires and Vary, and
    /// no representation metadata or content.
    private static func notModified(_ response: HTTPResponse) -> HTTPResponse {
        var headers = HTTPFields()
        for field in response.headers where !representationFields.contains(field.name.lowercased()) {
            headers.append(field.name, field.value)
        }
        return HTTPResponse(status: .notModified, headers: headers, body: .empty)
    }

    private static let representationFields: Set<String> = ["content-type", "content-encoding", "content-language"]
}
