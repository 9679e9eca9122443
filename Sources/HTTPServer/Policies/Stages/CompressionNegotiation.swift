/// A body worth compressing varies on `Accept-Encoding`, and goes out
/// gzip-coded when the client accepts it (RFC 9110 12.5.3); the coding
/// itself is `GzipCoding`'s, after a 304 may have withdrawn it.
struct CompressionNegotiation: ResponseStage {
    let policy: CompressionPolicy

    func apply(to exit: inout ResponseExit, terms: ExchangeTerms) {
        guard policy.isCompressible(exit.response) else { return }
        exit.vary.append("Accept-Encoding")
        exit.gzip = terms.acceptsGzip
    }
}
