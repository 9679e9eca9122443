import Domain

/// `GET /admin/exports/orders`: one record per order with its payment's
/// amounts (minor units) and its shipping address; address lines joined
/// by a line feed inside the one field.
enum OrderCSV {
    static let header = CSV.header([
        "id", "created_at", "customer_id", "status", "total", "currency", "payment_status", "payment_method",
        "financial_status", "paid", "refunded", "refund_owed", "ship_name", "ship_lines", "ship_city",
        "ship_postal_code", "ship_country", "ship_phone", "ship_email",
    ])

    static func record(_ item: OrderWithPayment) -> String {
        let order = item.order, payment = item.payment, address = order.shippingAddress
        return CSV.record([
            .text(order.id.description), .text(order.createdAt.rfc3339), .text(order.userID.description),
            .text(order.status.rawValue), .integer(order.total.amount), .text(order.total.currency.code),
            .text(payment?.status.rawValue), .text(payment?.method.rawValue), .text(payment?.financialStatus.rawValue),
            .integer(payment?.paid), .integer(payment?.refunded), .integer(payment?.refundOwed),
            .text(address?.name), .text(address?.lines.joined(separator: "\n")), .text(address?.city),
            .text(address?.postalCode), .text(address?.country), .text(address?.phone), .text(address?.email),
        ])
    }
}
