/// What a committed change concerns: the working set a follower must
/// invalidate or refresh for it. Stored as its raw value in `changes.kind`.
/// Open: each client declares the kinds it writes and follows, beside its
/// change-feed subscription (`extension ChangeKind { static let cart … }`),
/// so a feature adds its kinds without editing this file.
public struct ChangeKind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }
}
