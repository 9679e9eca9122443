import Contexts
import Domain
import HTTPServer

/// `DELETE /me` (the account, with the password re-entered), bound to the
/// session's AccountDeletionContext. Wrong passwords count in the sign-in
/// throttle: its refusals are the `login` policy's 429 here too.
public struct AccountRoutes: RouteGroup {
    public typealias Bound = AccountDeletionContext
    let account: SessionBinding<AccountDeletionContext>

    public init(gate: SessionGate) {
        account = SessionBinding(gate: gate)
    }

    public func register(on router: inout Router) {
        router.delete("/me", policy: .accountData, account.handler { [account] request in
            let body = try JSONBody.decode(PasswordBody.self, from: request.http)
            return try await account.gate.login.guarding {
                await account.endSession(try await request.context.deleteAccount(
                    password: body.password, clientAddress: request.http.clientAddress))
                return HTTPResponse(status: .noContent)
            }
        })
    }

    struct PasswordBody: Decodable {
        let password: String
    }
}
