import Domain
import HTTPServer

/// A product's `GET /products/{id}` body with its strong `ETag` and
/// Content-Type: made once per version of a product the catalogue's working
/// set holds and kept there with it, so a popular page is neither encoded
/// nor hashed again until the product changes.
struct ProductPageBody: Sendable {
    let bytes: [UInt8]
    /// Content-Type and ETag, with room for what the exchange policies add.
    let fields: HTTPFields

    init(_ product: Product) {
        bytes = ProductJSON.bytes(product)
        var fields = HTTPFields()
        fields.reserveCapacity(8)
        fields.append("Content-Type", "application/json; charset=utf-8")
        fields.append("ETag", EntityTag.of(bytes))
        self.fields = fields
    }

    var response: HTTPResponse { HTTPResponse(status: .ok, headers: fields, body: .bytes(bytes)) }
}
