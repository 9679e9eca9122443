/// No such entity (`user`, `product`, `order`, …) with that id: code
/// `<entity>_not_found`.
public struct NotFound: Refusal, Hashable {
    public let entity: String
    public let id: String

    public init(entity: String, id: String) {
        self.entity = entity
        self.id = id
    }

    public var code: String { "\(entity)_not_found" }
    public var category: RefusalCategory { .notFound }
    public var message: String { "no \(entity) with id \(id)" }
}
