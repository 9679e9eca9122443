/// A change a signed-in user's live stream (`GET /events`) carries: its
/// event type, named by the feature that declares it (`cart.updated`), and
/// what it shows. Presentation writes the payload as JSON through a
/// conformance of the payload's type, declared beside the feature's routes.
public struct LiveUpdate: Sendable {
    /// The event's type on the stream.
    public let kind: String
    public let payload: any Sendable

    public init(kind: String, payload: any Sendable) {
        self.kind = kind
        self.payload = payload
    }

    /// A change happened that the stream cannot show (a cart that could not
    /// be priced, an order not read, a stream that fell behind, storage
    /// away): the client must fetch its data again rather than believe it
    /// saw everything.
    public static func reset(reason: String) -> LiveUpdate {
        LiveUpdate(kind: "reset", payload: LiveReset(reason: reason))
    }
}
