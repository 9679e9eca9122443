import Axiom
import Domain

/// Prices carts: pure computation, no state, no capability.
///
/// Each cart line is looked up in the catalogue products handed in:
/// - found and active → a `PricedLine`: the product's name and current
///   price, `line_total = unit_price × quantity`; the total sums these;
/// - absent → `UnavailableLine` with reason `not_found` (name `nil`);
/// - deactivated → `UnavailableLine` with reason `inactive`, name `nil`: a
///   shopper is not shown what the shop took off sale (`GET /products/{id}`
///   is 404 for it), only that the line they added can no longer be bought.
/// Unavailable lines are reported, not priced and not in the total; nothing
/// about them throws. A priced line carries how many of its quantity the
/// product's stock (as handed in: the catalogue's working set) holds now,
/// `available_quantity`, so a shopper sees a shortage before checkout; the
/// checkout's reservation is what decides (against the stored row).
///
/// Throws `Overflow` when a line total or the total leaves the
/// `Int64` range, and `CurrencyMismatch` when a product is
/// priced in another currency than `currency`.
///
/// An actor because every client is one (`Client: Actor`), but nothing of
/// it is isolated: it has no state, so every call runs on the caller's
/// thread without a hop.
public actor PricingClient: StatelessClient {
    public init() {}

    public nonisolated func price(cart: Cart, products: [ProductID: Product],
                                  currency: Currency) throws -> CartQuote {
        var priced: [PricedLine] = []
        var unavailable: [UnavailableLine] = []
        for line in cart.lines {
            guard let product = products[line.productID] else {
                unavailable.append(UnavailableLine(productID: line.productID, name: nil, quantity: line.quantity,
                                                   reason: .notFound))
                continue
            }
            guard product.active else {
                unavailable.append(UnavailableLine(productID: line.productID, name: nil,
                                                   quantity: line.quantity, reason: .inactive))
                continue
            }
            guard product.price.currency == currency else {
                throw CurrencyMismatch(currency, product.price.currency)
            }
            priced.append(try PricedLine(productID: product.id, name: product.name, quantity: line.quantity,
                                         unitPrice: product.price, stock: product.stock))
        }
        return CartQuote(priced: try PricedCart(lines: priced, currency: currency), unavailable: unavailable)
    }

    public nonisolated func activate() async throws {}

    public nonisolated func deactivate() async {}
}
