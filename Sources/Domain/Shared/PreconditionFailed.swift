/// The caller made the change conditional on the state it last saw
/// (`If-Match`), and the state is another now: nothing was changed.
public struct PreconditionFailed: Refusal, Hashable {
    public let entity: String

    public init(entity: String) {
        self.entity = entity
    }

    public var code: String { "precondition_failed" }
    public var category: RefusalCategory { .preconditionFailed }
    public var message: String { "the \(entity) changed since the ETag in If-Match was issued; read it again and retry" }
}
