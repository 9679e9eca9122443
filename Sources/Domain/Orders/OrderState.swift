/// The owned state of `OrderClient`: empty. Orders live in storage and are
/// read per request by index, since a shop's order history only grows;
/// what observers need comes through the client's updates.
public struct OrderState: Sendable, Equatable {
    public init() {}
}
