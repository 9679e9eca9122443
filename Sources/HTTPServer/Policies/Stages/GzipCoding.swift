/// Codes the body with gzip when `CompressionNegotiation` chose it. A
/// write's answer carries the tag its handler set for the identity coding
/// (reads got theirs from `ConditionalRequests`): the gzip-coded
/// representation is another one (RFC 9110 8.8.3).
struct GzipCoding: ResponseStage {
    let level: Int32

    func apply(to exit: inout ResponseExit, terms: ExchangeTerms) {
        guard exit.gzip, case .bytes(let body) = exit.response.body,
              let encoded = Gzip.compress(body, level: level) else { return }
        exit.response.body = .bytes(encoded)
        exit.response.headers.set("Content-Encoding", "gzip")
        if !terms.isRead, let tag = exit.response.headers["etag"] {
            exit.response.headers.set("ETag", EntityTag.gzipVariant(of: tag))
        }
    }
}
