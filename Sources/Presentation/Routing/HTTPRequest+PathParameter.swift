import Domain
import HTTPServer

extension HTTPRequest {
    /// The path parameter `name` as `T`; text that is not a `T` is the
    /// resource's 404.
    public func parameter<T: PathParameter>(_ name: String, as type: T.Type) throws -> T {
        let text = parameters[name] ?? ""
        guard let value = T(text) else { throw EntityError.notFound(entity: T.entity, id: text) }
        return value
    }
}
