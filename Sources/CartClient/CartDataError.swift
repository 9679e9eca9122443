/// A stored cart row that does not make a valid cart.
struct CartDataError: Error, CustomStringConvertible {
    let description: String
}
