import Axiom
import AxiomTestSupport
import Capabilities
import CartClient
import CatalogClient
import Contexts
import Domain
import JobClient
import Synchronization
import Testing
import OrderClient
import PaymentClient
import PricingClient
import UserClient
import WebhookClient

/// The whole shop without HTTP: every client over a SQLite file in a temp
/// directory or a fresh PostgreSQL schema (`backend`), made by a real orchestrator as the composition root makes
/// them, a session registry, and the process-wide contexts, and a job
/// runner for the works a test names. Time is a `ManualClock` the test
/// moves.
struct ShopRun {
    let orchestrator: AxiomOrchestrator
    let clock: ManualClock
    let sessions: SessionRegistry<SessionContext>
    let storefront: StorefrontContext
    let registration: RegistrationContext
    /// Started when the test named works to run.
    let runner: JobRunnerContext?
    let directory: TempDirectory
    /// The token of each session signed in, by session id.
    let tokens = TokenBook()

    static let sessionLifetime = Duration.seconds(3_600)
    static let adminPassword = "correct horse battery"

    static func start(_ backend: StorageBackend = .sqlite, lease: CheckoutLease = .default,
                      works: [any JobWork.Type] = []) async throws -> ShopRun {
        let directory = try TempDirectory(prefix: "contexts-tests")
        let clock = ManualClock()
        let database = try await backend.database(at: directory.path("shop.db"))
        let orchestrator = try await acquireOrchestrator()
        do {
            let schema = (UserClient.migrations + CatalogClient.migrations + CartClient.migrations
                + OrderClient.migrations + PaymentClient.migrations + WebhookClient.migrations)
                .sorted { $0.version < $1.version }
            let storageType = try await backend.register(on: orchestrator, database: database, migrations: schema)
            try await orchestrator.registerCapability(PasswordHasher.self) { try PasswordHasher(parameters: .minimum) }
            try await orchestrator.registerCapability(SecureRandom.self) { try SecureRandom() }
            try await orchestrator.registerCapability(MessageAuthenticator.self) { try MessageAuthenticator() }
            // Endpoints on 127.0.0.1 (nothing a test delivers to is public).
            try await orchestrator.registerCapability(OutboundHTTP.self) {
                try OutboundHTTP(settings: OutboundHTTPSettings(addressPolicy: AddressPolicy(allowsPrivate: true)))
            }
            try orchestrator.registerClient(CatalogClient.self, dependencies: [storageType]) {
                CatalogClient(storage: try backend.access($0), lease: lease)
            }
            try orchestrator.registerClient(PricingClient.self, dependencies: []) { _ in PricingClient() }
            try orchestrator.registerClient(CartClient.self, dependencies: [storageType]) {
                CartClient(storage: try backend.access($0))
            }
            try orchestrator.registerClient(OrderClient.self, dependencies: [storageType]) {
                OrderClient(storage: try backend.access($0), clock: clock, owner: lease.owner)
            }
            try orchestrator.registerClient(PaymentClient.self, dependencies: [storageType, MessageAuthenticator.self]) {
                PaymentClient(storage: try backend.access($0), authenticator: try $0.handle(MessageAuthenticator.self),
                              clock: clock, settings: PaymentSettings(webhookSecret: nil, timeoutSeconds: 900))
            }
            // The admin feature answers for the job queue too.
            try orchestrator.registerClient(JobClient.self, dependencies: [storageType]) {
                JobClient(storage: try backend.access($0), clock: clock)
            }
            // The admin feature answers for the webhooks too.
            try orchestrator.registerClient(WebhookClient.self,
                                            dependencies: [storageType, OutboundHTTP.self, MessageAuthenticator.self,
                                                           SecureRandom.self]) {
                WebhookClient(storage: try backend.access($0), http: try $0.handle(OutboundHTTP.self),
                              authenticator: try $0.handle(MessageAuthenticator.self),
                              random: try $0.handle(SecureRandom.self), clock: clock)
            }
            try orchestrator.registerClient(UserClient.self,
                                            dependencies: [storageType, PasswordHasher.self, SecureRandom.self]) {
                UserClient(storage: try backend.access($0), hasher: try $0.handle(PasswordHasher.self),
                           random: try $0.handle(SecureRandom.self), clock: clock, sessionLifetime: sessionLifetime)
            }
            try orchestrator.compose(LiveUpdatesContext.self,
                                     with: LiveFeatures([CartLiveFeature.self, OrderLiveFeature.self]))
            let sessions = SessionRegistry<SessionContext>(
                orchestrator: orchestrator, configuration: .init(idleTimeout: .seconds(900), maxSessions: 16), clock: clock)
            try orchestrator.compose(RegistrationContext.self, with: sessions)
            try orchestrator.compose(JobRunnerContext.self, with: JobWorks(works))
            try await orchestrator.start()
            let runner = works.isEmpty ? nil : try await orchestrator.createContext(JobRunnerContext.self, parent: nil)
            await runner?.start()
            return ShopRun(orchestrator: orchestrator, clock: clock, sessions: sessions,
                           storefront: try await orchestrator.createContext(StorefrontContext.self, parent: nil),
                           registration: try await orchestrator.createContext(RegistrationContext.self, parent: nil),
                           runner: runner, directory: directory)
        } catch {
            await orchestrator.shutdown()
            throw error
        }
    }

    func stop() async {
        await runner?.stop()
        await orchestrator.shutdownClosingStorage()
    }

    /// Runs `body` with a started shop and stops it after, whether `body`
    /// throws or not.
    static func with(_ backend: StorageBackend = .sqlite, lease: CheckoutLease = .default,
                     works: [any JobWork.Type] = [], _ body: (ShopRun) async throws -> Void) async throws {
        let run = try await start(backend, lease: lease, works: works)
        try await withCleanup({ await run.stop() }) { try await body(run) }
    }

    /// A registered, signed-in customer.
    func customer(_ name: String) async throws -> Authentication {
        let email = "\(name.lowercased())@example.com"
        _ = try await registration.register(NewUserRequest(name: name, email: email, password: Self.adminPassword))
        return try await signIn(email)
    }

    /// The configured admin, signed in.
    func admin() async throws -> Authentication {
        _ = try await registration.ensureAdmin(name: "Admin", email: "admin@example.com", password: Self.adminPassword)
        return try await signIn("admin@example.com")
    }

    func signIn(_ email: String) async throws -> Authentication {
        let session = try await registration.signIn(email: email, password: Self.adminPassword, clientAddress: "127.0.0.1")
        tokens.keep(session.token, for: session.sessionID)
        return try await authenticate(session.token)
    }

    /// Who `token` belongs to, as a request bearing it is admitted (and
    /// then turned away, so that no session context is made for it).
    func authenticate(_ token: String) async throws -> Authentication {
        let admitted = TokenBook.Admitted()
        do {
            try await registration.withSession(.bearer(token), ProfileContext.self, admitting: {
                admitted.caller = $0
                throw TokenBook.Admitted.TurnedAway()
            }) { _ in }
        } catch is TokenBook.Admitted.TurnedAway {}
        return try #require(admitted.caller)
    }

    /// The session's feature context of type `T`, as a request of
    /// `caller`'s session reaches it.
    func feature<T: SessionFeature>(_ type: T.Type, of caller: Authentication) async throws -> T {
        let token = try #require(tokens.token(of: caller.sessionID))
        return try await registration.withSession(.bearer(token), type, admitting: { _ in }) { $0 }
    }

    /// A product on sale, made by the admin.
    /// The opening most context tests share: a mug (12.50, five in stock)
    /// and Alice, registered and signed in.
    func mugAndAlice() async throws -> (mug: Product, alice: Authentication) {
        (try await product("MUG", cents: 1_250, stock: 5), try await customer("Alice"))
    }

    func product(_ sku: String, cents: Int64, stock: Int) async throws -> Product {
        let admin = try await admin()
        return try await feature(AdminContext.self, of: admin).createProduct(
            ProductDraft(sku: sku, name: sku, price: Money(amount: cents, currency: .usd), stock: stock))
    }
}

/// The tokens a shop run signed in, by session id (a request carries its
/// token, not its session).
final class TokenBook: Sendable {
    private let tokens = Mutex<[String: String]>([:])

    func keep(_ token: String, for sessionID: String) {
        tokens.withLock { $0[sessionID] = token }
    }

    func token(of sessionID: String) -> String? {
        tokens.withLock { $0[sessionID] }
    }

    /// Who a request was admitted as.
    final class Admitted: @unchecked Sendable {
        struct TurnedAway: Error {}
        var caller: Authentication?
    }
}
