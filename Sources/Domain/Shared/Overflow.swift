/// An amount or quantity left its representable range.
public struct Overflow: Refusal, Hashable {
    public init() {}

    public var code: String { "overflow" }
    public var category: RefusalCategory { .invalid }
    public var message: String { "amount out of range" }
}
