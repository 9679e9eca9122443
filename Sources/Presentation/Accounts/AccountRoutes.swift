import Contexts
import Domain
import FoundationEssentials
import HTTPServer

/// `POST /users` (register) and `POST /sessions` (sign in), bound to the
/// StorefrontContext: what anyone may do without a token.
public enum RegistrationRoutes {
    public static let name = "RegistrationRoutes"

    public static func register(on router: inout Router, storefront: StorefrontContext) {
        router.post("/users") { request in
            try await ErrorResponses.handling {
                let body = try JSONBody.decode(NewUserRequest.self, from: request)
                let user = try await storefront.register(body)
                return try JSONBody.response(user, status: .created, headers: ["Location": "/users/\(user.id)"])
            }
        }
        router.post("/sessions") { request in
            try await ErrorResponses.handling {
                let body = try JSONBody.decode(LoginRequest.self, from: request)
                let session = try await storefront.login(email: body.email, password: body.password,
                                                         clientAddress: clientAddress(of: request))
                return try JSONBody.response(SessionBody(session), status: .created,
                                             headers: ["Cache-Control": "no-store"])
            }
        }
    }

    /// The peer's IP without its port: throttling counts per address.
    static func clientAddress(of request: HTTPRequest) -> String {
        let address = request.remoteAddress
        if address.hasPrefix("["), let close = address.firstIndex(of: "]") {
            return String(address[address.index(after: address.startIndex)..<close])
        }
        return address.split(separator: ":").first.map(String.init) ?? address
    }

    struct LoginRequest: Decodable {
        let email: String
        let password: String
    }

    /// `{token, expires_at, user}`.
    struct SessionBody: Encodable {
        let token: String
        let expiresAt: Domain.Timestamp
        let user: User

        init(_ session: AuthenticatedSession) {
            token = session.token
            expiresAt = session.expiresAt
            user = session.user
        }

        enum CodingKeys: String, CodingKey {
            case token, user
            case expiresAt = "expires_at"
        }
    }
}

/// `GET`/`PATCH /users/me`, `DELETE /sessions/current`, and the user records
/// (`GET /users`, `GET`/`PATCH /users/{id}`: admins; a user may read their
/// own), bound to the AccountContext of the request's session.
public enum AccountRoutes {
    public static let name = "AccountRoutes"

    public static func register(on router: inout Router, sessions: SessionResolver) {
        router.get("/users/me") { request in
            try await ErrorResponses.handling {
                try JSONBody.response(try await sessions.withAccount(request) { _, user in user })
            }
        }
        router.patch("/users/me") { request in
            try await ErrorResponses.handling {
                try JSONBody.response(try await sessions.withAccount(request) { account, _ in
                    try await account.updateProfile(try JSONBody.decode(UserProfilePatch.self, from: request),
                                                    clientAddress: RegistrationRoutes.clientAddress(of: request))
                })
            }
        }
        router.get("/users") { request in
            try await ErrorResponses.handling {
                let page = try PageRequest.from(request)
                return try JSONBody.response(try await sessions.withAccount(request) { account, _ in
                    try await account.users(limit: page.limit, cursor: page.cursor)
                })
            }
        }
        router.get("/users/{id}") { request in
            try await ErrorResponses.handling {
                try JSONBody.response(try await sessions.withAccount(request) { account, _ in
                    try await account.user(try userID(request))
                })
            }
        }
        router.patch("/users/{id}") { request in
            try await ErrorResponses.handling {
                try JSONBody.response(try await sessions.withAccount(request) { account, _ in
                    let patch = try JSONBody.decode(UserAdminPatch.self, from: request)
                    return try await account.updateUser(try userID(request), patch)
                })
            }
        }
        router.delete("/sessions/current") { request in
            try await ErrorResponses.handling {
                let ended = try await sessions.withAccount(request) { account, _ -> String? in
                    let sessionID = await account.sessionID
                    _ = try await account.logout()
                    return sessionID
                }
                if let ended { await sessions.end(sessionID: ended) }
                return HTTPResponse(status: .noContent)
            }
        }
    }
}

/// An id that is not even a UUID names no user: 404 like any other.
private func userID(_ request: HTTPRequest) throws -> UserID {
    let text = request.parameters["id"] ?? ""
    guard let id = UserID(text) else { throw DomainError.notFound(entity: "user", id: text) }
    return id
}

/// `POST /products` and `PATCH /products/{id}`: admins only, bound to the
/// AccountContext (which checks the role).
public enum CatalogAdminRoutes {
    public static let name = "CatalogAdminRoutes"

    public static func register(on router: inout Router, sessions: SessionResolver) {
        router.post("/products") { request in
            try await ErrorResponses.handling {
                // Who is asking comes first: an anonymous caller gets 401, not a verdict on its body.
                let product = try await sessions.withAccount(request) { account, _ in
                    try await account.createProduct(try JSONBody.decode(ProductDraft.self, from: request))
                }
                return try JSONBody.response(product, status: .created, headers: ["Location": "/products/\(product.id)"])
            }
        }
        router.patch("/products/{id}") { request in
            try await ErrorResponses.handling {
                let text = request.parameters["id"] ?? ""
                let product = try await sessions.withAccount(request) { account, _ in
                    let patch = try JSONBody.decode(ProductPatch.self, from: request)
                    guard let id = ProductID(text) else { throw DomainError.notFound(entity: "product", id: text) }
                    return try await account.updateProduct(id, patch)
                }
                return try JSONBody.response(product)
            }
        }
    }
}
