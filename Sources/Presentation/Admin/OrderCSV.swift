import Domain

/// `GET /admin/exports/orders`: one record per order with its payment's
/// amounts (minor units) and its shipping address; address lines joined
/// by a line feed inside the one field.
enum OrderCSV {
    static let header = CSV.record([
        "id", "created_at", "customer_id", "status", "total", "currency", "payment_status", "payment_method",
        "financial_status", "paid", "refunded", "refund_owed", "ship_name", "ship_lines", "ship_city",
        "ship_postal_code", "ship_country", "ship_phone", "ship_email",
    ])

    static func record(_ item: OrderWithPayment) -> String {
        let order = item.order, payment = item.payment, address = order.shippingAddress
        return CSV.record([
            order.id.description, order.createdAt.rfc3339, order.userID.description, order.status.rawValue,
            String(order.total.amount), order.total.currency.code, payment?.status.rawValue, payment?.method.rawValue,
            payment?.financialStatus.rawValue, payment.map { String($0.paid) }, payment.map { String($0.refunded) },
            payment.map { String($0.refundOwed) }, address?.name, address?.lines.joined(separator: "\n"), address?.city,
            address?.postalCode, address?.country, address?.phone, address?.email,
        ])
    }
}
