import Domain
import HTTPServer

/// A route that takes only the query parameters it names: any other is a
/// mistake the caller should hear about (a misspelt `form=` for `from=`
/// would silently list everything), 422 `validation_failed` naming each.
enum KnownQuery {
    static func require(_ request: HTTPRequest, only names: Set<String>) throws {
        let unknown = request.query.map(\.name).filter { !names.contains($0) }
        guard !unknown.isEmpty else { return }
        throw ValidationError(Set(unknown).sorted().map {
            FieldError(field: $0, code: .invalidFormat, message: "\($0) is not a parameter of this route")
        })
    }
}
