import Capabilities
import Domain

/// The webhook events the catalogue's writes enqueue, each in the
/// transaction of its write (`CatalogClient(webhooks:)`): a product
/// created, changed by an admin, or whose stock a write took from above
/// its threshold to at or below it. Off, it enqueues nothing.
struct CatalogWebhookEvents: Sendable {
    let isOn: Bool

    func created(_ product: Product, at now: Int64, on handle: any StorageHandle) throws {
        try enqueue(.productCreated, product, at: now, on: handle)
    }

    func updated(_ product: Product, at now: Int64, on handle: any StorageHandle) throws {
        try enqueue(.productUpdated, product, at: now, on: handle)
    }

    /// `product.stock_low` for each written product whose stock fell to its threshold.
    func stockLow(_ written: [WrittenProduct], at now: Int64, on handle: any StorageHandle) throws {
        for product in written where product.fellToLowStock {
            try enqueue(.productStockLow, product.row.product, at: now, on: handle,
                        threshold: product.row.product.lowStockThreshold)
        }
    }

    private func enqueue(_ type: WebhookEventType, _ product: Product, at now: Int64, on handle: any StorageHandle,
                         threshold: Int? = nil) throws {
        guard isOn else { return }
        try handle.enqueue(try WebhookEvent(type: type, subject: .product(product.id), at: now, threshold: threshold)
            .request())
    }
}
