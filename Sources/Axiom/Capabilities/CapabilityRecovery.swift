/// The outcome of probing one capability in
/// ``CapabilityRegistry/recoverUnavailable()``.
public struct CapabilityRecovery: Sendable, Codable, Equatable {
    public let capability: String
    public let wasAvailable: Bool
    public let recreated: Bool
    public let isAvailable: Bool
    public let generation: Int
    public let error: String?
}
