/// A user's cart: lines in the order products were first added, at most one
/// line per product, at most `maxLines` lines. Immutable; changes return a
/// new cart. Encodes as `{user_id, items: [{product_id, quantity}]}`.
public struct Cart: Hashable, Sendable, Codable, Validatable {
    /// Bounds what one user can make the service store and price.
    public static let maxLines = 100

    public let userID: UserID
    public let lines: [CartLine]

    public init(userID: UserID, lines: [CartLine] = []) {
        self.userID = userID
        self.lines = lines
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case lines = "items"
    }

    public func validate() -> ValidationError? {
        var errors = ValidationError()
        if lines.count > Cart.maxLines {
            errors.add("items", .tooLong, "a cart holds at most \(Cart.maxLines) products")
        }
        var seen = Set<ProductID>()
        for (index, line) in lines.enumerated() {
            errors.merge(line.validate(), prefix: "items[\(index)]")
            if !seen.insert(line.productID).inserted {
                errors.add("items[\(index)].product_id", .inconsistent, "product \(line.productID) appears twice")
            }
        }
        return errors.orNil
    }

    // MARK: - Questions

    public var isEmpty: Bool { lines.isEmpty }

    public func quantity(of productID: ProductID) -> Int? {
        lines.first { $0.productID == productID }?.quantity
    }

    // MARK: - Changes

    /// Sets a product's quantity (1…99): replaces the line in place when
    /// present, appends one otherwise. Out-of-range quantities and a full
    /// cart are a `ValidationError`.
    public func settingQuantity(_ quantity: Int, for productID: ProductID) throws -> Cart {
        if let error = CartLine.checkQuantity(quantity) { throw ValidationError([error]) }
        let line = CartLine(productID: productID, quantity: quantity)
        var newLines = lines
        if let index = newLines.firstIndex(where: { $0.productID == productID }) {
            newLines[index] = line
        } else {
            guard newLines.count < Cart.maxLines else {
                throw ValidationError([FieldError(
                    field: "items", code: .tooLong, message: "a cart holds at most \(Cart.maxLines) products")])
            }
            newLines.append(line)
        }
        return Cart(userID: userID, lines: newLines)
    }

    /// The cart without that product's line (unchanged when there is none).
    public func removing(_ productID: ProductID) -> Cart {
        Cart(userID: userID, lines: lines.filter { $0.productID != productID })
    }

    public func cleared() -> Cart { Cart(userID: userID) }

    /// The cart once a checkout's order holds `ordered`: a line goes when the
    /// order holds its product at its quantity. A line the order does not
    /// hold as it is now (added, or its quantity changed, by a write
    /// acknowledged after the checkout read the cart, e.g. from another
    /// session of the user) stays: clearing it would lose that write.
    public func removingOrdered(_ ordered: [CartLine]) -> Cart {
        let taken = Set(ordered)
        return Cart(userID: userID, lines: lines.filter { !taken.contains($0) })
    }
}
