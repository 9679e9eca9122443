/// RFC-001 1.1: external system access (storage, clock, randomness, …).
///
/// A capability has no dependencies (constraint 2.3) and is transient
/// (constraint 2.14): the orchestrator re-creates one that became unavailable
/// and every client resolves the new instance from then on, through its
/// ``CapabilityHandle``.
///
/// `isAvailable` is a cheap cached flag that request paths may read;
/// `checkAvailability()` probes the system, updates the flag and returns it.
public protocol Capability: AnyObject, Sendable {
    var isAvailable: Bool { get }
    func checkAvailability() async -> Bool
}
