public struct Cents: Sendable, Equatable {
    public let value: Int

    public init(_ value: Int) { self.value = value }
}
