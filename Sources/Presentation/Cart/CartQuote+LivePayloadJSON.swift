import Domain

/// `cart.updated`: the cart as `GET /cart` shows it.
extension CartQuote: LivePayloadJSON {
    func liveJSON() -> [UInt8] { CartJSON.bytes(self) }
}
