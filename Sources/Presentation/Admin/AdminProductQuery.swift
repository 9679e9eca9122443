import Domain
import HTTPServer

/// `GET /admin/products?active=…&q=…&limit=…&cursor=…`: the public list's
/// parameters, and `active` (`true` or `false`) to list only the products
/// on sale or only the deactivated ones; without it, every product. Every
/// bad parameter is listed; no other parameter is taken.
enum AdminProductQuery {
    static func from(_ request: HTTPRequest) throws -> ProductQuery {
        try KnownQuery.require(request, only: ["active", "q", "limit", "cursor"])
        let page = try PageRequest.from(request)
        var shown = ProductQuery.Shown.all
        if let active = request.query["active"] {
            switch active {
            case "true": shown = .active
            case "false": shown = .inactive
            default:
                throw ValidationError([
                    FieldError(field: "active", code: .invalidFormat, message: "active must be true or false"),
                ])
            }
        }
        return ProductQuery(text: request.query["q"], limit: page.limit, cursor: page.cursor, shown: shown)
    }
}
