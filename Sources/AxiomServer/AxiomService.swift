import Axiom
import CartClient
import CatalogClient
import Capabilities
import Contexts
import Domain
import HTTPServer
import MailClient
import JobClient
import OrderClient
import PaymentClient
import PricingClient
import Presentation
import Synchronization
import UserClient
import WebhookClient
import WishlistClient

/// The composition root: makes the capabilities, the orchestrator (which
/// makes the clients and validates the component graph) and the HTTP server,
/// and takes them down in the reverse order. The only place that sees every
/// layer.
final class AxiomService: Sendable {
    let options: ServerOptions
    let logger: ServerLogger
    /// Every route served with its policy: checked against openapi.yaml and
    /// the policy table (RoutePolicyTableTests).
    let routes: [Router.Route]
    private let orchestrator: AxiomOrchestrator
    private let server: HTTPServer
    /// The operations listener (`ops_port`), when configured.
    private let opsServer: HTTPServer?
    private let background: [Task<Void, Never>]
    /// Set when shutdown begins, so `/ready` turns 503 while requests drain.
    private let lifecycle: Lifecycle
    private let feed: ChangeFeed
    private let jobRunner: JobRunnerContext

    /// Builds and starts everything; throws (and the process refuses to
    /// start) when a capability cannot be made or a constraint fails.
    /// `accessLog` receives the per-request lines (none when nil).
    static func start(options: ServerOptions, logger: ServerLogger,
                      accessLog: LogOutput? = nil) async throws -> AxiomService {
        let orchestrator = try AxiomOrchestrator()
        let storage = ServiceStorage(options)
        try await registerCapabilities(on: orchestrator, storage: storage, options: options, logger: logger)
        let subscribers = ChangeSubscriberList()
        let webhookCounters = WebhookDeliveryCounters()
        try registerClients(on: orchestrator, storage: storage, options: options, subscribers: subscribers,
                            webhookCounters: webhookCounters)
        // What `/events` carries: each feature's live events, declared in
        // its own files; the live-updates context follows this list.
        // The sessions the registration context opens and enters.
        let sessions = SessionRegistry<SessionContext>(
            orchestrator: orchestrator,
            configuration: .init(idleTimeout: options.sessionIdleTimeout, maxSessions: options.maxSessions),
            clock: try orchestrator.capabilityRegistry.resolve(SystemClockCapability.self))
        try orchestrator.compose(RegistrationContext.self, with: sessions)
        try orchestrator.compose(CheckoutContext.self,
                                 with: CheckoutRules(requireVerifiedEmail: options.requireVerifiedEmail))
        try orchestrator.compose(LiveUpdatesContext.self, with: LiveFeatures([
            CartLiveFeature.self,
            OrderLiveFeature.self,
            WishlistLiveFeature.self,
        ]))
        // The work behind every job kind this process runs, declared in
        // each feature's files; the runner claims only these kinds.
        try orchestrator.compose(JobRunnerContext.self, with: JobWorks([
            PaymentExpiryWork.self,
            CheckoutRecoveryWork.self,
            ExpiredSessionsWork.self,
            JobPruneWork.self,
            OrderMails.self,
            AccountMails.self,
            AccountErasureWork.self,
            WebhookEventWork.self,
            WebhookDeliveryWork.self,
            WebhookPruneWork.self,
            WebhookMails.self,
        ]))
        do {
            try await orchestrator.start()
        } catch AxiomError.constraintViolations(let report) {
            for check in report.checks where !check.passed {
                logger.log(.error, "constraint_violated", [("constraint", check.constraint), ("detail", check.detail),
                                                           ("violations", check.violations.joined(separator: "; "))])
            }
            await orchestrator.shutdown()
            throw AxiomError.constraintViolations(report)
        }
        let report = orchestrator.validate()
        logger.log(.info, "components_validated", [("passed", String(report.passed))],
                   numbers: [("constraints_checked", report.checks.count)])

        let storefront: StorefrontContext
        let registration: RegistrationContext
        let notifications: PaymentNotificationContext
        let recovery: CheckoutRecoveryContext
        let jobRunner: JobRunnerContext
        let feed: ChangeFeed
        let tokenStore: StorageTokenStore?
        do {
            // Other processes on this database (docs/change-feed.md): their
            // committed changes reach these clients' working sets.
            feed = ChangeFeed(storage: try storage.access(orchestrator.capabilityRegistry),
                              settings: options.changeFeedSettings)
            for subscriber in subscribers.all { feed.subscribe(subscriber) }
            // Rate limits counted across the processes on this database.
            tokenStore = options.sharedRateLimits
                ? StorageTokenStore(storage: try storage.access(orchestrator.capabilityRegistry)) : nil
            try await feed.start()
            logger.log(.info, "change_feed_started", [("wake", feed.isListening ? "notify" : "poll"),
                                                      ("replica_coherence", options.replicaCoherence)],
                       numbers: [("sequence", Int(feed.appliedSequence))])
            storefront = try await orchestrator.createContext(StorefrontContext.self, parent: nil)
            registration = try await orchestrator.createContext(RegistrationContext.self, parent: nil)
            notifications = try await orchestrator.createContext(PaymentNotificationContext.self, parent: nil)
            if !notifications.isConfigured {
                logger.log(.warning, "payments_not_configured",
                           [("detail", "payment_webhook_secret is not set: POST /payments/webhook answers 503")])
            }
            if options.requireVerifiedEmail && !registration.mailEnabled {
                logger.log(.warning, "verified_email_unreachable", [("detail",
                    "require_verified_email is on but no mail is sent: accounts registered from now on cannot check out")])
            }
            recovery = try await orchestrator.createContext(CheckoutRecoveryContext.self, parent: nil)
            if let transport = options.mail.transport {
                logger.log(.info, "mail_on", [("smtp_host", transport.host), ("smtp_tls", transport.security.rawValue),
                                              ("from", options.mail.sender.from.address)],
                           numbers: [("smtp_port", Int(transport.port))])
            } else {
                logger.log(.notice, "mail_off", [("detail", "smtp_host is not set: no mail is queued or sent")])
            }
            // On PostgreSQL only what this process's previous life held and
            // what has its lease run out: never the checkouts other replicas
            // are running. A SQLite file has this one process.
            let repaired = try await recovery.recover(options.databaseURL == nil ? .everything : .ownOrExpired)
            log(repaired.event("checkouts_reconciled"), logger: logger)
            jobRunner = try await orchestrator.createContext(JobRunnerContext.self, parent: nil)
            if let email = options.adminEmail, let password = options.adminPassword {
                let admin = try await registration.ensureAdmin(name: options.adminName, email: email, password: password)
                // An existing account is left as it is: if it was demoted or
                // suspended since, say so instead of claiming an admin.
                if admin.isAdmin && admin.isActive {
                    logger.log(.notice, "admin_ready", [("user_id", admin.id.description)])
                } else {
                    logger.log(.warning, "admin_email_not_an_active_admin",
                               [("user_id", admin.id.description), ("role", admin.role.rawValue),
                                ("status", admin.status.rawValue)])
                }
            }
        } catch {
            await orchestrator.shutdown()
            throw error
        }
        let userLimiter = options.userRateLimit.map { RateLimiter(policy: $0, shared: tokenStore) }
        let gate = SessionGate(registration: registration, userLimit: UserRateLimit(userLimiter))
        let classLimits = RouteClassRateLimits(
            signIn: RouteClassRateLimit(options.signInRateLimit.map { RateLimiter(policy: $0, shared: tokenStore) }),
            registration: RouteClassRateLimit(options.registrationRateLimit.map { RateLimiter(policy: $0, shared: tokenStore) }),
            checkout: RouteClassRateLimit(options.checkoutRateLimit.map { RateLimiter(policy: $0, shared: tokenStore) }),
            passwordReset: RouteClassRateLimit(options.passwordResetRateLimit.map {
                RateLimiter(policy: $0, shared: tokenStore)
            }))
        // Every route group, each bound to its one context type (RFC-001
        // 2.4): declared to the orchestrator and registered from this list.
        let groups: [any RouteGroup] = [
            CatalogRoutes(storefront, maxAge: options.catalogMaxAgeSeconds),
            RegistrationRoutes(registration, limits: classLimits),
            AccountTokenRoutes(registration, limit: classLimits.passwordReset),
            ProfileRoutes(gate: gate),
            AccountRoutes(gate: gate),
            CartRoutes(gate: gate),
            OrderRoutes(gate: gate),
            CheckoutRoutes(gate: gate, limit: classLimits.checkout),
            AdminRoutes(gate: gate),
            WishlistRoutes(gate: gate),
            EventRoutes(gate: gate, heartbeat: options.eventsHeartbeat),
            IntrospectionRoutes(gate: gate, orchestrator: orchestrator),
            PaymentWebhookRoutes(notifications),
        ]
        for group in groups { try group.bind(to: orchestrator) }
        let lifecycle = Lifecycle()
        let metrics = ServiceMetrics(orchestrator: orchestrator,
                                     applicationLimiters: [userLimiter].compactMap { $0 } + classLimits.limiters,
                                     loginDecisions: registration.loginDecisions,
                                     paymentAnomalies: { notifications.anomaliesKept }, changeFeed: feed,
                                     jobRunner: jobRunner, webhooks: webhookCounters)
        func registerProbes(on router: inout Router) {
            HealthRoutes.register(on: &router)
            ReadinessRoutes.register(on: &router) { [orchestrator] in
                ReadinessRoutes.Readiness(
                    capabilities: orchestrator.capabilityRegistry.availability.map {
                        (ServiceMetrics.shortName($0.capability), $0.isAvailable)
                    },
                    shuttingDown: lifecycle.isShuttingDown)
            }
        }
        func registerOperations(on router: inout Router) {
            MetricsRoutes.register(on: &router, token: options.metricsToken.map(OperationsToken.init)) {
                await metrics.exposition(sessions: sessions)
            }
            for group in groups where group.listener == .operations { group.register(on: &router) }
        }
        var router = Router()
        router.problem = RefusalProblem.problem(for:)
        DiscoveryRoutes.register(on: &router)
        registerProbes(on: &router)
        // With `ops_port`, the operations routes (metrics, introspection)
        // are served on that listener only, beside its own probes: a
        // deployment can keep them off the public address altogether.
        var opsRouter: Router?
        if options.opsPort != nil {
            var ops = Router()
            ops.problem = RefusalProblem.problem(for:)
            registerProbes(on: &ops)
            registerOperations(on: &ops)
            opsRouter = ops
        } else {
            registerOperations(on: &router)
            // Said once at start-up, not refused: tests, scripts and a
            // Prometheus on a private network scrape without a token.
            if options.metricsToken == nil {
                logger.log(.warning, "metrics_public", [("detail",
                    "GET /metrics is served on the main listener without metrics_token: anyone who reaches it reads "
                        + "sign-in, order and session counts; set metrics_token or ops_port")])
            }
        }
        let beforeGroups = Set(router.routes.map { "\($0.method) \($0.pattern)" })
        for group in groups where group.listener == .main { group.register(on: &router) }
        if options.strictReplicaCoherence {
            // Read-your-writes across replicas: a request reads cached state
            // only after this process applied every change committed before
            // it arrived. Probes and operations routes do not wait.
            router.wrapHandlers(of: { !beforeGroups.contains("\($0.method) \($0.pattern)") }) { handler in
                { request in
                    do {
                        try await feed.barrier()
                    } catch {
                        throw AxiomError.capabilityUnavailable(String(reflecting: ChangeFeed.self))
                    }
                    return try await handler(request)
                }
            }
        }
        let access = accessLog.map { AccessLog(minimumLevel: options.logLevel, output: $0) }
        var configuration = options.serverConfiguration
        configuration.sharedRateLimit = tokenStore
        let server = HTTPServer(configuration: configuration, router: router, logger: logger) { exchange in
            metrics.requests.record(exchange)
            access?.record(exchange)
        }
        metrics.attach(server)
        let opsServer = opsRouter.map { opsRouter in
            HTTPServer(configuration: options.opsServerConfiguration, router: opsRouter, logger: logger) { exchange in
                access?.record(exchange)
            }
        }
        do {
            try server.start()
            try opsServer?.start()
        } catch {
            await server.shutdown()
            await orchestrator.shutdown()
            throw error
        }
        // Cluster-wide sweeps (payment expiry, checkout recovery, expired
        // sessions, the queue's prune) are periodic jobs, run on one replica
        // at a time. What stays a loop here is each process's own: its
        // session contexts, its storage instance, its rate-limit tokens, its
        // search index merge that gives way to its own writes (docs/jobs.md).
        await jobRunner.start { log($0, logger: logger) }
        let background = [
            Task { await sessions.expireIdleSessions(every: .seconds(30)) },
            Task {
                await StorageRecovery(orchestrator: orchestrator, logger: logger) { await storage.watch(orchestrator) }
                    .run(every: options.storageProbeInterval)
            },
            Task { await compactSearchIndex(storefront: storefront, logger: logger, every: .seconds(10),
                                           resume: .milliseconds(100)) },
        ] + ([server.rateLimiter, userLimiter].compactMap { $0 } + classLimits.limiters).map { limiter in
            Task { await limiter.shareTokens() }
        }
        let routes = router.routes + (opsRouter?.routes ?? [])
        return AxiomService(options: options, logger: logger, orchestrator: orchestrator, server: server,
                            opsServer: opsServer, routes: routes, background: background, lifecycle: lifecycle,
                            feed: feed, jobRunner: jobRunner)
    }

    private init(options: ServerOptions, logger: ServerLogger, orchestrator: AxiomOrchestrator, server: HTTPServer,
                 opsServer: HTTPServer?, routes: [Router.Route], background: [Task<Void, Never>],
                 lifecycle: Lifecycle, feed: ChangeFeed, jobRunner: JobRunnerContext) {
        self.feed = feed
        self.jobRunner = jobRunner
        self.opsServer = opsServer
        self.background = background
        self.lifecycle = lifecycle
        self.options = options
        self.routes = routes
        self.logger = logger
        self.orchestrator = orchestrator
        self.server = server
    }

    private static func registerCapabilities(on orchestrator: AxiomOrchestrator, storage: ServiceStorage,
                                             options: ServerOptions, logger: ServerLogger) async throws {
        // Every client owns its tables and its own range of migration
        // versions; applied together, in version order, at start-up.
        let schema = (UserClient.migrations + CatalogClient.migrations + CartClient.migrations + OrderClient.migrations
            + PaymentClient.migrations + WishlistClient.migrations + WebhookClient.migrations)
            .sorted { $0.version < $1.version }
        try await storage.register(on: orchestrator, migrations: schema)
        try await orchestrator.registerCapability(SystemClockCapability.self) { SystemClockCapability() }
        try await orchestrator.registerCapability(SecureRandom.self) { try SecureRandom() }
        try await orchestrator.registerCapability(PasswordHasher.self) {
            try PasswordHasher(maxConcurrent: UsableCPUs.current.count, maxWaiting: options.passwordHashMaxWaiting)
        }
        try await orchestrator.registerCapability(MessageAuthenticator.self) { try MessageAuthenticator() }
        if let transport = options.mail.transport {
            try await orchestrator.registerCapability(MailTransport.self) { try MailTransport(transport) }
        }
        let webhookHTTP = options.webhooks.http
        try await orchestrator.registerCapability(OutboundHTTP.self) { try OutboundHTTP(settings: webhookHTTP) }
        if options.webhooks.allowPrivate || options.webhooks.allowHTTP {
            logger.log(.warning, "webhooks_unguarded", [
                ("allow_private", String(options.webhooks.allowPrivate)), ("allow_http", String(options.webhooks.allowHTTP)),
                ("detail", "webhook endpoints may reach this host's network or go unencrypted: for tests only")])
        }
        logger.log(.info, "storage_opened", storage.logFields,
                   numbers: [("migrations", schema.count), ("schema_version", Int(schema.last?.version ?? 0))])
    }

    /// Every client on the one storage the service runs on (`ServiceStorage`).
    private static func registerClients(on orchestrator: AxiomOrchestrator, storage: ServiceStorage,
                                        options: ServerOptions, subscribers: ChangeSubscriberList,
                                        webhookCounters: WebhookDeliveryCounters) throws {
        let currency = options.currency
        let cacheEntries = options.catalogCacheEntries
        let lease = options.checkoutLease
        let keyLifetime = options.idempotencyKeyTTLSeconds
        let unpaidLimits = options.unpaidOrderLimits
        let database = storage.capability
        let mails = options.mail.isOn
        let webhooks = options.webhooks.events
        try orchestrator.registerClient(CatalogClient.self,
                                        dependencies: [database, SystemClockCapability.self]) { resolver in
            subscribers.adding(CatalogClient(storage: try storage.access(resolver), currency: currency,
                                             cacheEntries: cacheEntries, lease: lease,
                                             clock: try resolver.handle(SystemClockCapability.self).current,
                                             webhooks: webhooks))
        }
        try orchestrator.registerClient(PricingClient.self, dependencies: []) { _ in PricingClient() }
        let cartCacheEntries = options.cartCacheEntries
        try orchestrator.registerClient(CartClient.self, dependencies: [database]) { resolver in
            subscribers.adding(CartClient(storage: try storage.access(resolver), cacheEntries: cartCacheEntries))
        }
        try orchestrator.registerClient(OrderClient.self,
                                        dependencies: [database, SystemClockCapability.self]) { resolver in
            subscribers.adding(OrderClient(storage: try storage.access(resolver),
                                           clock: try resolver.handle(SystemClockCapability.self).current,
                                           owner: lease.owner, idempotencyKeyLifetimeSeconds: keyLifetime,
                                           unpaidLimits: unpaidLimits, mails: mails, webhooks: webhooks))
        }
        let paymentSettings = options.paymentSettings
        try orchestrator.registerClient(PaymentClient.self,
                                        dependencies: [database, MessageAuthenticator.self,
                                                       SystemClockCapability.self]) { resolver in
            subscribers.adding(PaymentClient(storage: try storage.access(resolver),
                                             authenticator: try resolver.handle(MessageAuthenticator.self),
                                             clock: try resolver.handle(SystemClockCapability.self).current,
                                             settings: paymentSettings, mails: mails, webhooks: webhooks))
        }
        try registerMail(on: orchestrator, options: options)
        try orchestrator.registerClient(WishlistClient.self, dependencies: [database]) { resolver in
            subscribers.adding(WishlistClient(storage: try storage.access(resolver)))
        }
        let jobSettings = options.jobRunnerSettings
        try orchestrator.registerClient(JobClient.self, dependencies: [database, SystemClockCapability.self]) { resolver in
            JobClient(storage: try storage.access(resolver), clock: try resolver.handle(SystemClockCapability.self).current,
                      settings: jobSettings)
        }
        let webhookSettings = options.webhooks.client(jobsConcurrency: options.jobsConcurrency)
        try orchestrator.registerClient(WebhookClient.self,
                                        dependencies: [database, OutboundHTTP.self, MessageAuthenticator.self,
                                                       SecureRandom.self, SystemClockCapability.self]) { resolver in
            WebhookClient(storage: try storage.access(resolver), http: try resolver.handle(OutboundHTTP.self),
                          authenticator: try resolver.handle(MessageAuthenticator.self),
                          random: try resolver.handle(SecureRandom.self),
                          clock: try resolver.handle(SystemClockCapability.self).current, settings: webhookSettings,
                          counters: webhookCounters, mails: mails)
        }
        let sessionLifetime = options.sessionLifetime
        let throttle = options.loginThrottle
        let userCacheEntries = options.userCacheEntries
        // As many sign-in sessions as session contexts may be held.
        let sessionCacheEntries = options.maxSessions
        let accounts = options.accountSettings(mailEnabled: mails)
        try orchestrator.registerClient(UserClient.self,
                                        dependencies: [database, PasswordHasher.self, SecureRandom.self,
                                                       SystemClockCapability.self]) { resolver in
            subscribers.adding(UserClient(storage: try storage.access(resolver),
                                          hasher: try resolver.handle(PasswordHasher.self),
                                          random: try resolver.handle(SecureRandom.self),
                                          clock: try resolver.handle(SystemClockCapability.self).current,
                                          sessionLifetime: sessionLifetime, throttle: throttle,
                                          userCacheEntries: userCacheEntries, sessionCacheEntries: sessionCacheEntries,
                                          accounts: accounts, webhooks: webhooks))
        }
    }

    /// The mail client, over the SMTP capability when mail is on; its
    /// templates are read and parsed here, so a broken one stops the start.
    private static func registerMail(on orchestrator: AxiomOrchestrator, options: ServerOptions) throws {
        let templates = options.mail.isOn
            ? try MailTemplates(directory: options.mail.templates, overrides: options.mail.templatesOverride)
            : MailTemplates()
        let sender = options.mail.sender
        let site = options.mail.site(adminEmail: options.adminEmail)
        let transport: [any Capability.Type] = options.mail.isOn ? [MailTransport.self] : []
        try orchestrator.registerClient(MailClient.self, dependencies: transport + [SystemClockCapability.self]) { resolver in
            MailClient(transport: options.mail.isOn ? try resolver.handle(MailTransport.self) : nil, templates: templates,
                       sender: sender, site: site, clock: try resolver.handle(SystemClockCapability.self).current)
        }
    }

    /// Merges the search index towards one segment now and then (once right
    /// away, so a bulk-imported file is merged without an operator's step),
    /// in steps taken while no write waits (`CatalogClient.compactSearchIndex`).
    /// A round that gave way to a write is taken up again after `resume`;
    /// the merge is logged once it is done.
    private static func compactSearchIndex(storefront: StorefrontContext, logger: ServerLogger,
                                           every interval: Duration, resume: Duration) async {
        var segmentsBefore: Int?
        var steps = 0
        while !Task.isCancelled {
            var pause = interval
            do {
                if let round = try await storefront.compactSearchIndex() {
                    segmentsBefore = segmentsBefore ?? round.segmentsBefore
                    steps += round.steps
                    if round.interrupted {
                        pause = resume
                    } else {
                        logger.log(.info, "search_index_merged",
                                   numbers: [("segments_before", segmentsBefore ?? 0),
                                             ("segments_after", round.segmentsAfter), ("steps", steps)])
                        (segmentsBefore, steps) = (nil, 0)
                    }
                }
            } catch {
                // Storage unavailable: the next round tries again.
                logger.log(.warning, "search_index_not_merged", [("error", String(describing: error))])
            }
            try? await Task.sleep(for: pause)
        }
    }

    private static func log(_ event: JobEvent, logger: ServerLogger) {
        logger.log(event.warns ? .warning : .info, event.name, event.fields, numbers: event.numbers)
    }

    /// What the job runner did: each work's events, and every failed
    /// attempt (a warning; an error once the job is dead). Successes are
    /// counted in `/metrics`, not logged: a periodic kind succeeds twice a
    /// second.
    private static func log(_ outcome: JobOutcome, logger: ServerLogger) {
        for event in outcome.events { log(event, logger: logger) }
        guard case .failed(let error, let dead) = outcome.result else { return }
        logger.log(dead ? .error : .warning, dead ? "job_dead" : "job_failed",
                   [("kind", outcome.kind), ("error", error)],
                   numbers: [("job_id", Int(outcome.jobID)), ("attempt", outcome.attempt)])
    }

    /// Graceful stop: drain HTTP first (in-flight requests still reach the
    /// clients), then release contexts and deactivate clients.
    func shutdown() async {
        lifecycle.beginShutdown()
        await server.shutdown()
        await opsServer?.shutdown()
        for task in background { task.cancel() }
        // Before the clients go: a running job finishes (or, past the
        // grace, is left to its lease) while its clients can still record it.
        await jobRunner.stop()
        await feed.stop()
        await orchestrator.shutdown()
        logger.log(.notice, "stopped")
    }
}
