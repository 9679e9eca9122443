/// Refusals any feature's stored entities share, named by the entity or
/// field they are about (`user`, `product`, `email`, `sku`, …).
public enum EntityError: Refusal, Hashable {
    /// No such entity with that id: code `<entity>_not_found`.
    case notFound(entity: String, id: String)
    /// A unique value (email, SKU, checkout) is already taken: code
    /// `duplicate_<field>`.
    case duplicate(field: String, value: String)
    /// The caller made the change conditional on the state it last saw
    /// (`If-Match`), and the state is another now: nothing was changed.
    case preconditionFailed(entity: String)

    public var code: String {
        switch self {
        case .notFound(let entity, _): "\(entity)_not_found"
        case .duplicate(let field, _): "duplicate_\(field)"
        case .preconditionFailed: "precondition_failed"
        }
    }

    public var category: RefusalCategory {
        switch self {
        case .notFound: .notFound
        case .duplicate: .conflict
        case .preconditionFailed: .preconditionFailed
        }
    }

    public var message: String {
        switch self {
        case .notFound(let entity, let id):
            "no \(entity) with id \(id)"
        case .duplicate(let field, _):
            "that \(field) is already taken"
        case .preconditionFailed(let entity):
            "the \(entity) changed since the ETag in If-Match was issued; read it again and retry"
        }
    }
}
