import Domain
import HTTPServer

/// A product's `GET /products/{id}` body with its strong `ETag` and
/// Content-Type: made once per version of a product the catalogue's working
/// set holds and kept there with it, so a popular page is neither encoded
/// nor hashed again until the product changes.
struct ProductPageBody: Sendable {
    let bytes: [UInt8]
    /// Content-Type and ETag, and no spare capacity: the working set keeps
    /// one of these per product it holds, and a stage that adds a field
    /// copies the list anyway (the entry shares it).
    let fields: HTTPFields

    init(_ product: Product) {
        bytes = ProductJSON.bytes(product)
        var fields = HTTPFields()
        fields.reserveCapacity(2)
        fields.append("Content-Type", "application/json; charset=utf-8")
        fields.append("ETag", EntityTag.of(bytes))
        self.fields = fields
    }

    var response: HTTPResponse { HTTPResponse(status: .ok, headers: fields, body: .bytes(bytes)) }
}
