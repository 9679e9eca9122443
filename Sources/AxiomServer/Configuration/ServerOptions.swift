import Capabilities
import CatalogClient
import Domain
import Glibc
import HTTPServer
import PaymentClient
import UserClient

/// Every setting of `axiom-server` with its built-in default. The values
/// come, each overriding the one before, from these defaults, the
/// configuration file (`--config PATH`), the environment (`AXIOM_…`) and
/// the command line; see ``ConfigurationLoader`` and `config/README.md`.
struct ServerOptions: Sendable {
    var host = "127.0.0.1"
    var port = 8080
    var databasePath = "./data/axiom.db"
    /// PostgreSQL instead of the SQLite file (`database`); never both.
    var databaseURL: String?
    var currency = Currency.usd
    var logLevel = ServerLogger.Level.info

    /// Event loops; 0 = one per online CPU.
    var eventLoops = 0
    var maxConnections = 10_000
    var maxConnectionsPerAddress = 256
    /// Comma-separated peer addresses exempt from the per-address cap.
    var trustedProxies = ""
    var maxBodyBytes = 1024 * 1024
    var maxRequestLineBytes = 8 * 1024
    var maxHeaderBytes = 16 * 1024
    var maxHeaderFields = 100
    var headerTimeoutSeconds = 10.0
    var bodyTimeoutSeconds = 10.0
    var bodyMinRate = 500
    var bodyGraceSeconds = 5.0
    var bodyTimeoutTotalSeconds = 60.0
    var maxBufferedBodyBytes = 256 * 1024 * 1024
    var idleTimeoutSeconds = 60.0
    var shutdownDeadlineSeconds = 10.0

    var sessionTTLSeconds = 86_400.0
    var sessionIdleTimeoutSeconds = 1_800.0
    var maxSessions = 100_000
    var passwordHashMaxWaiting = 64
    var catalogCacheEntries = CatalogClient.defaultCacheEntries
    var cartCacheEntries = 10_000
    var userCacheEntries = 10_000
    /// How this process follows the change outbox: `notify` (LISTEN on
    /// PostgreSQL; SQLite always polls) or `poll`.
    var changeFeed = "notify"
    var changeFeedPollIntervalSeconds = 0.1
    var changeFeedRetentionSeconds = 86_400.0
    /// `strict`: a request first waits until this process has applied every
    /// change committed before it arrived (several processes on one
    /// database); `off`: one process, nothing to wait for.
    var replicaCoherence = "off"
    var loginWindowSeconds = 900.0
    var loginFailuresPerPair = 5
    var loginFailuresPerAccount = 5
    var loginFailuresPerAddress = 20
    var loginMaxBackoffSeconds = 30.0
    var loginMaxPairBackoffSeconds = 900.0
    var loginTrustPeriodSeconds = 30 * 86_400.0
    var loginUnfamiliarFreeFailures = 10
    var loginMaxUnfamiliarBackoffSeconds = 300.0

    var adminEmail: String?
    var adminPassword: String?
    var adminName = "Administrator"
    var metricsToken: String?
    var opsHost = "127.0.0.1"
    /// The operations listener's port; none (nil) serves the operations
    /// routes on the main listener.
    var opsPort: Int?

    var paymentWebhookSecret: String?
    var paymentWebhookToleranceSeconds = 300
    var paymentTimeoutSeconds = 900
    var manualPaymentTimeoutDays = 7
    /// Names this process in the checkout leases it holds; nil: `host:port`
    /// (stable across restarts; the process id when the port is chosen at
    /// random).
    var instanceName: String?
    var checkoutLeaseSeconds = 30
    var idempotencyKeyTTLSeconds = 86_400
    var unpaidOrdersPerCustomer = 5
    var unpaidUnitsPerCustomer = 100
    var unpaidOrderLimits: UnpaidOrderLimits {
        UnpaidOrderLimits(orders: unpaidOrdersPerCustomer, units: unpaidUnitsPerCustomer)
    }
    var compression = true
    var compressionMinBytes = 1024
    /// Comma-separated origins (`https://shop.example`) browsers may call from.
    var corsAllowedOrigins = ""
    var corsMaxAgeSeconds = 600
    /// `Cache-Control: max-age` of catalogue reads; 0 sends `no-cache` (revalidate every time).
    var catalogMaxAgeSeconds = 0
    var rateLimit = true
    /// Far above what one client reaches on the benchmark machine (GET
    /// /health peaks near 85k requests per second over 64 connections), so
    /// benchmarks, tests and the README never meet it; deployments set theirs.
    var rateLimitPerSecond = 100
    var rateLimitBurst = 400
    var rateLimitMaxClients = 100_000
    /// Per signed-in user, across their sessions: as far above a benchmark
    /// as the address limit (a wrk run signs in one user for every
    /// connection), so only a deployment's own values ever refuse.
    var rateLimitUserPerSecond = 20
    var rateLimitUserBurst = 100
    var rateLimitSignInPerMinute = 20
    var rateLimitSignInBurst = 20
    var rateLimitRegistrationPerMinute = 5
    var rateLimitRegistrationBurst = 10
    var rateLimitCheckoutPerMinute = 30
    var rateLimitCheckoutBurst = 30
    /// `cluster`: on PostgreSQL the limits count across every process on the
    /// database (docs/rate-limits.md); a SQLite file has one process.
    var rateLimitScope = "cluster"
    /// PostgreSQL write connections of this process; 0 = from the round trip.
    var postgresWriters = 0

    var storageProbeIntervalSeconds = 2.0
    var eventsHeartbeatSeconds = 15.0

    var sessionLifetime: Duration { .milliseconds(Int(sessionTTLSeconds * 1000)) }
    var sessionIdleTimeout: Duration { .milliseconds(Int(sessionIdleTimeoutSeconds * 1000)) }
    var storageProbeInterval: Duration { .milliseconds(Int(storageProbeIntervalSeconds * 1000)) }
    var eventsHeartbeat: Duration { .milliseconds(Int(eventsHeartbeatSeconds * 1000)) }
    var changeFeedSettings: ChangeFeedSettings {
        ChangeFeedSettings(wake: ChangeFeedSettings.Wake(rawValue: changeFeed) ?? .notify,
                           pollInterval: .milliseconds(Int(changeFeedPollIntervalSeconds * 1000)),
                           retentionSeconds: Int64(changeFeedRetentionSeconds))
    }
    var strictReplicaCoherence: Bool { replicaCoherence == "strict" }
    var sharedRateLimits: Bool { rateLimit && rateLimitScope == "cluster" && databaseURL != nil }

    var paymentSettings: PaymentSettings {
        PaymentSettings(webhookSecret: paymentWebhookSecret, webhookToleranceSeconds: Int64(paymentWebhookToleranceSeconds),
                        timeoutSeconds: Int64(paymentTimeoutSeconds),
                        manualTimeoutDays: Int64(manualPaymentTimeoutDays))
    }

    var checkoutLease: CheckoutLease {
        CheckoutLease(owner: instanceName ?? Self.defaultInstanceName(port: port), seconds: checkoutLeaseSeconds)
    }

    private static func defaultInstanceName(port: Int) -> String {
        var name = [CChar](repeating: 0, count: 256)
        let host = gethostname(&name, name.count) == 0 ? String(cString: name) : "localhost"
        return port == 0 ? "\(host):pid-\(getpid())" : "\(host):\(port)"
    }

    var loginThrottle: LoginThrottle.Policy {
        LoginThrottle.Policy(windowSeconds: Int(loginWindowSeconds.rounded(.up)), pairFreeFailures: loginFailuresPerPair,
                             accountFreeFailures: loginFailuresPerAccount, addressFreeFailures: loginFailuresPerAddress,
                             maxBackoffSeconds: Int(loginMaxBackoffSeconds.rounded(.up)),
                             maxPairBackoffSeconds: Int(loginMaxPairBackoffSeconds.rounded(.up)),
                             trustPeriodSeconds: Int(loginTrustPeriodSeconds.rounded(.up)),
                             unfamiliarFreeFailures: loginUnfamiliarFreeFailures,
                             maxUnfamiliarBackoffSeconds: Int(loginMaxUnfamiliarBackoffSeconds.rounded(.up)))
    }

    var serverConfiguration: HTTPServerConfiguration {
        HTTPServerConfiguration(
            host: host, port: port,
            limits: ParserLimits(maxRequestLineBytes: maxRequestLineBytes, maxHeaderBytes: maxHeaderBytes,
                                 maxHeaderCount: maxHeaderFields, maxBodyBytes: maxBodyBytes),
            headerTimeout: .milliseconds(Int(headerTimeoutSeconds * 1000)),
            bodyTimeout: .milliseconds(Int(bodyTimeoutSeconds * 1000)),
            bodyMinRate: bodyMinRate,
            bodyGrace: .milliseconds(Int(bodyGraceSeconds * 1000)),
            bodyTotalTimeout: .milliseconds(Int(bodyTimeoutTotalSeconds * 1000)),
            idleTimeout: .milliseconds(Int(idleTimeoutSeconds * 1000)),
            maxConnections: maxConnections,
            maxConnectionsPerAddress: maxConnectionsPerAddress,
            trustedProxies: Self.addressList(trustedProxies),
            maxBufferedBodyBytes: maxBufferedBodyBytes,
            shutdownDeadline: .milliseconds(Int(shutdownDeadlineSeconds * 1000)),
            eventLoops: eventLoops,
            compression: compression ? CompressionPolicy(minimumBytes: compressionMinBytes) : nil,
            cors: corsAllowedOrigins.isEmpty ? nil
                : CORSPolicy(allowedOrigins: Self.originList(corsAllowedOrigins), maxAge: corsMaxAgeSeconds),
            rateLimit: rateLimit ? RateLimitPolicy(requestsPerSecond: Double(rateLimitPerSecond), burst: rateLimitBurst,
                                                   maxTrackedClients: rateLimitMaxClients) : nil)
    }

    /// The `per-user` limit, on when `rate_limit` is.
    var userRateLimit: RateLimitPolicy? {
        rateLimit ? RateLimitPolicy(name: "per-user", requestsPerSecond: Double(rateLimitUserPerSecond),
                                    burst: rateLimitUserBurst, maxTrackedClients: rateLimitMaxClients) : nil
    }

    /// The route classes' limits per client address, on when `rate_limit` is.
    var signInRateLimit: RateLimitPolicy? {
        routeClassLimit("sign-in", perMinute: rateLimitSignInPerMinute, burst: rateLimitSignInBurst)
    }
    var registrationRateLimit: RateLimitPolicy? {
        routeClassLimit("registration", perMinute: rateLimitRegistrationPerMinute, burst: rateLimitRegistrationBurst)
    }
    var checkoutRateLimit: RateLimitPolicy? {
        routeClassLimit("checkout", perMinute: rateLimitCheckoutPerMinute, burst: rateLimitCheckoutBurst)
    }

    private func routeClassLimit(_ name: String, perMinute: Int, burst: Int) -> RateLimitPolicy? {
        rateLimit ? RateLimitPolicy(name: name, requestsPerSecond: Double(perMinute) / 60, burst: burst,
                                    maxTrackedClients: rateLimitMaxClients) : nil
    }

    /// The origins of a comma-separated list: `scheme://host[:port]`, as a
    /// browser sends them in `Origin` (compared byte for byte).
    static func originList(_ list: String) -> Set<String> {
        Set(list.split(separator: ",").map { String($0.filter { $0 != " " }) }.filter(isOrigin))
    }

    private static func isOrigin(_ text: String) -> Bool {
        guard text.hasPrefix("http://") || text.hasPrefix("https://") else { return false }
        let rest = text.drop { $0 != ":" }.dropFirst(3)
        return !rest.isEmpty && !rest.contains("/") && !rest.contains(" ")
    }

    /// The operations listener: the main listener's limits, its own address.
    var opsServerConfiguration: HTTPServerConfiguration {
        var configuration = serverConfiguration
        configuration.host = opsHost
        configuration.port = opsPort ?? 0
        return configuration
    }

    /// The settings in the order `--help` and `--print-config` show them.
    static let settings: [Setting] = [
        .text("host", accepted: "an IPv4 address or host name", help: "address to listen on (0.0.0.0 for every interface)",
              check: { !$0.isEmpty && !$0.contains(" ") }, get: \.host, set: { $0.host = $1 }),
        .integer("port", in: 0...65535, help: "TCP port; 0 picks a free one and logs it",
                 get: \.port, set: { $0.port = $1 }),
        .text("database", accepted: "a file path", help: "SQLite database file; its directory is created on first start",
              check: { !$0.isEmpty }, get: \.databasePath, set: { $0.databasePath = $1 }),
        .optionalText("database_url",
                      help: "PostgreSQL instead of SQLite, postgres://user:pass@host:port/db (null: the database file; not with database)",
                      get: \.databaseURL, set: { $0.databaseURL = $1 }),
        .integer("postgres_writers", in: 0...64,
                 help: "PostgreSQL write connections, each committing its own batches (0 = 1 when the database answers within 0.5 ms, else 3)",
                 get: \.postgresWriters, set: { $0.postgresWriters = $1 }),
        .text("currency", accepted: "an ISO 4217 code of three capital letters", help: "currency of every price",
              check: { (try? Currency($0)) != nil }, get: \.currency.code, set: { $0.currency = try! Currency($1) }),
        .text("log_level", accepted: "one of debug, info, notice, warning, error", help: "lowest level logged",
              check: { name in ServerLogger.Level.allCases.contains { $0.name == name } },
              get: \.logLevel.name, set: { options, name in
                  options.logLevel = ServerLogger.Level.allCases.first { $0.name == name } ?? .info
              }),

        .integer("event_loops", in: 0...1024,
                 help: "event loop threads serving connections (0 = one per CPU the process may use: affinity and cgroup quota)",
                 get: \.eventLoops, set: { $0.eventLoops = $1 }),
        .integer("max_connections", in: 1...1_000_000, help: "open connections before new ones get 503",
                 get: \.maxConnections, set: { $0.maxConnections = $1 }),
        .integer("max_connections_per_address", in: 1...1_000_000,
                 help: "open connections from one client address before new ones from it get 503",
                 get: \.maxConnectionsPerAddress, set: { $0.maxConnectionsPerAddress = $1 }),
        .list("trusted_proxies", accepted: "comma-separated IP addresses, or empty",
              help: "peer addresses (load balancers) exempt from max_connections_per_address",
              check: { list in list.isEmpty || addressList(list).count == list.split(separator: ",").count },
              get: \.trustedProxies, set: { $0.trustedProxies = $1 }),
        .integer("max_body_bytes", in: 0...(1 << 30), help: "largest request body (413 beyond)",
                 get: \.maxBodyBytes, set: { $0.maxBodyBytes = $1 }),
        .integer("max_buffered_body_bytes", in: 0...(1 << 40),
                 help: "request body bytes buffered across all connections (503 with Retry-After beyond)",
                 get: \.maxBufferedBodyBytes, set: { $0.maxBufferedBodyBytes = $1 }),
        .integer("max_request_line_bytes", in: 256...(1 << 20), help: "longest request line (414 beyond)",
                 get: \.maxRequestLineBytes, set: { $0.maxRequestLineBytes = $1 }),
        .integer("max_header_bytes", in: 1024...(1 << 20), help: "largest header section (431 beyond)",
                 get: \.maxHeaderBytes, set: { $0.maxHeaderBytes = $1 }),
        .integer("max_header_fields", in: 1...10_000, help: "most header fields in a request (431 beyond)",
                 get: \.maxHeaderFields, set: { $0.maxHeaderFields = $1 }),
        .seconds("header_timeout", help: "seconds a request's header section may take to arrive (408 after)",
                 get: \.headerTimeoutSeconds, set: { $0.headerTimeoutSeconds = $1 }),
        .seconds("body_timeout", help: "seconds a request body may stall (408 after)",
                 get: \.bodyTimeoutSeconds, set: { $0.bodyTimeoutSeconds = $1 }),
        .integer("body_min_rate", in: 0...(1 << 30),
                 help: "bytes per second a request body must average after body_grace (408 below; 0 = no minimum)",
                 get: \.bodyMinRate, set: { $0.bodyMinRate = $1 }),
        .seconds("body_grace", help: "seconds before body_min_rate applies to a request body",
                 get: \.bodyGraceSeconds, set: { $0.bodyGraceSeconds = $1 }),
        .seconds("body_timeout_total", help: "seconds a whole request body may take to arrive (408 after)",
                 get: \.bodyTimeoutTotalSeconds, set: { $0.bodyTimeoutTotalSeconds = $1 }),
        .seconds("idle_timeout", help: "seconds an idle keep-alive connection stays open",
                 get: \.idleTimeoutSeconds, set: { $0.idleTimeoutSeconds = $1 }),
        .seconds("shutdown_deadline", help: "seconds in-flight requests get to finish at shutdown",
                 get: \.shutdownDeadlineSeconds, set: { $0.shutdownDeadlineSeconds = $1 }),

        .seconds("session_ttl", max: 366 * 86_400, help: "seconds a sign-in token stays valid",
                 get: \.sessionTTLSeconds, set: { $0.sessionTTLSeconds = $1 }),
        .seconds("session_idle_timeout", help: "seconds a session's context stays in memory without requests",
                 get: \.sessionIdleTimeoutSeconds, set: { $0.sessionIdleTimeoutSeconds = $1 }),
        .integer("password_hash_max_waiting", in: 0...100_000,
                 help: "password hashes and checks that may wait for a hashing slot; beyond, 503 password_hashing_busy",
                 get: \.passwordHashMaxWaiting, set: { $0.passwordHashMaxWaiting = $1 }),
        .integer("max_sessions", in: 1...10_000_000, help: "session contexts kept in memory (least recently used unloaded beyond)",
                 get: \.maxSessions, set: { $0.maxSessions = $1 }),
        .integer("catalog_cache_entries", in: 1...10_000_000,
                 help: "products kept in memory (least recently read evicted; the rest are read from SQLite)",
                 get: \.catalogCacheEntries, set: { $0.catalogCacheEntries = $1 }),
        .integer("cart_cache_entries", in: 1...10_000_000,
                 help: "carts kept in memory (least recently used evicted; the rest are read from SQLite)",
                 get: \.cartCacheEntries, set: { $0.cartCacheEntries = $1 }),
        .integer("user_cache_entries", in: 1...10_000_000,
                 help: "users kept in memory (least recently used evicted; the rest are read from SQLite)",
                 get: \.userCacheEntries, set: { $0.userCacheEntries = $1 }),
        .text("change_feed", accepted: "notify or poll",
              help: "how other processes' changes are noticed: notify (PostgreSQL LISTEN) or poll (SQLite always polls)",
              check: { ["notify", "poll"].contains($0) },
              get: \.changeFeed, set: { $0.changeFeed = $1 }),
        .seconds("change_feed_poll_interval", max: 60,
                 help: "seconds between reads of the change outbox when polling (ten times this as NOTIFY's safety net)",
                 get: \.changeFeedPollIntervalSeconds, set: { $0.changeFeedPollIntervalSeconds = $1 }),
        .seconds("change_feed_retention", max: 30 * 86_400,
                 help: "seconds the change outbox keeps a change (a replica further behind drops its caches)",
                 get: \.changeFeedRetentionSeconds, set: { $0.changeFeedRetentionSeconds = $1 }),
        .text("replica_coherence", accepted: "strict or off",
              help: "strict: each request waits until this process has applied every change committed before it (several processes on one database)",
              check: { ["strict", "off"].contains($0) },
              get: \.replicaCoherence, set: { $0.replicaCoherence = $1 }),
        .seconds("login_window", help: "seconds after its last failure when a run of failed sign-ins is forgotten",
                 get: \.loginWindowSeconds, set: { $0.loginWindowSeconds = $1 }),
        .integer("login_max_failures_per_pair", in: 1...1_000,
                 help: "failed sign-ins for one account from one address before that pair backs off",
                 get: \.loginFailuresPerPair, set: { $0.loginFailuresPerPair = $1 }),
        .integer("login_max_failures_per_account", in: 1...1_000,
                 help: "failed sign-ins for one account before the addresses failing for it back off",
                 get: \.loginFailuresPerAccount, set: { $0.loginFailuresPerAccount = $1 }),
        .integer("login_max_failures_per_address", in: 1...1_000_000,
                 help: "failed sign-ins from one address before it backs off (but for accounts it signed in before)",
                 get: \.loginFailuresPerAddress, set: { $0.loginFailuresPerAddress = $1 }),
        .seconds("login_max_backoff", help: "longest per-account and per-address back-off (429 Retry-After)",
                 get: \.loginMaxBackoffSeconds, set: { $0.loginMaxBackoffSeconds = $1 }),
        .seconds("login_max_pair_backoff", help: "longest back-off of one address for one account",
                 get: \.loginMaxPairBackoffSeconds, set: { $0.loginMaxPairBackoffSeconds = $1 }),
        .seconds("login_trust_period", max: 366 * 86_400,
                 help: "seconds a sign-in exempts its account at that address from the address's back-off",
                 get: \.loginTrustPeriodSeconds, set: { $0.loginTrustPeriodSeconds = $1 }),
        .integer("login_max_failures_per_account_unfamiliar", in: 1...1_000,
                 help: "failed sign-ins for one account before every address it has not signed in from backs off",
                 get: \.loginUnfamiliarFreeFailures, set: { $0.loginUnfamiliarFreeFailures = $1 }),
        .seconds("login_max_unfamiliar_backoff",
                 help: "longest back-off of an address an account has not signed in from, on the account's failures",
                 get: \.loginMaxUnfamiliarBackoffSeconds, set: { $0.loginMaxUnfamiliarBackoffSeconds = $1 }),

        .optionalText("admin_email", help: "first admin's email, created at start-up if not registered",
                      get: \.adminEmail, set: { $0.adminEmail = $1 }),
        .optionalText("admin_password", help: "first admin's password (prefer the environment to a flag)",
                      get: \.adminPassword, set: { $0.adminPassword = $1 }),
        .text("admin_name", accepted: "a non-empty name", help: "first admin's name", check: { !$0.isEmpty },
              get: \.adminName, set: { $0.adminName = $1 }),
        .optionalText("metrics_token", help: "bearer token GET /metrics requires (anyone may scrape when null)",
                      get: \.metricsToken, set: { $0.metricsToken = $1 }),
        .text("ops_host", accepted: "an IPv4 address or host name", help: "address of the operations listener (ops_port)",
              check: { !$0.isEmpty && !$0.contains(" ") }, get: \.opsHost, set: { $0.opsHost = $1 }),
        .optionalInteger("ops_port", in: 0...65535,
                         help: "port of a separate listener for /metrics and /axiom/components (null: the main one serves them)",
                         get: \.opsPort, set: { $0.opsPort = $1 }),

        .optionalText("payment_webhook_secret",
                      help: "secret shared with the payment provider for webhook signatures (null: webhook answers 503)",
                      get: \.paymentWebhookSecret, set: { $0.paymentWebhookSecret = $1 }),
        .integer("payment_webhook_tolerance", in: 1...86_400,
                 help: "seconds a webhook signature's timestamp may be from now",
                 get: \.paymentWebhookToleranceSeconds, set: { $0.paymentWebhookToleranceSeconds = $1 }),
        .integer("payment_timeout", in: 1...86_400,
                 help: "seconds an order may stay unpaid before it is cancelled and its stock returned",
                 get: \.paymentTimeoutSeconds, set: { $0.paymentTimeoutSeconds = $1 }),
        .integer("manual_payment_timeout", in: 1...366,
                 help: "days an order paid by a manual method (bank transfer) may wait for an admin to record the money",
                 get: \.manualPaymentTimeoutDays, set: { $0.manualPaymentTimeoutDays = $1 }),
        .optionalText("instance_name",
                      help: "this process's name in the checkout leases it holds, unique per replica and kept across its restarts (null: host:port)",
                      get: \.instanceName, set: { $0.instanceName = $1 }),
        .integer("checkout_lease", in: 1...3_600,
                 help: "seconds other processes' recovery leaves a checkout this process is running alone",
                 get: \.checkoutLeaseSeconds, set: { $0.checkoutLeaseSeconds = $1 }),
        .integer("idempotency_key_ttl", in: 60...(30 * 86_400),
                 help: "seconds a checkout's Idempotency-Key answers with its order (a new checkout after)",
                 get: \.idempotencyKeyTTLSeconds, set: { $0.idempotencyKeyTTLSeconds = $1 }),
        .integer("unpaid_orders_per_customer", in: 0...10_000,
                 help: "orders one customer may have waiting for payment at once (0: no bound)",
                 get: \.unpaidOrdersPerCustomer, set: { $0.unpaidOrdersPerCustomer = $1 }),
        .integer("unpaid_units_per_customer", in: 0...1_000_000,
                 help: "units one customer's orders waiting for payment may hold in all (0: no bound)",
                 get: \.unpaidUnitsPerCustomer, set: { $0.unpaidUnitsPerCustomer = $1 }),
        .boolean("compression", help: "gzip response bodies of compression_min_bytes or more for clients that accept it",
                 get: \.compression, set: { $0.compression = $1 }),
        .integer("compression_min_bytes", in: 0...(1 << 30), help: "smallest response body sent gzip-encoded",
                 get: \.compressionMinBytes, set: { $0.compressionMinBytes = $1 }),
        .list("cors_allowed_origins", accepted: "comma-separated origins (http[s]://host[:port]), or empty",
              help: "origins whose browser pages may call the API (empty: no CORS fields at all)",
              check: { list in list.isEmpty || originList(list).count == list.split(separator: ",").count },
              get: \.corsAllowedOrigins, set: { $0.corsAllowedOrigins = $1 }),
        .integer("cors_max_age", in: 0...86_400, help: "seconds a browser may cache a CORS preflight answer",
                 get: \.corsMaxAgeSeconds, set: { $0.corsMaxAgeSeconds = $1 }),
        .integer("catalog_max_age", in: 0...86_400,
                 help: "Cache-Control max-age of product reads in seconds (0: no-cache, revalidate with ETag each time)",
                 get: \.catalogMaxAgeSeconds, set: { $0.catalogMaxAgeSeconds = $1 }),
        .boolean("rate_limit", help: "limit requests per client address (429 rate_limited beyond)",
                 get: \.rateLimit, set: { $0.rateLimit = $1 }),
        .integer("rate_limit_per_second", in: 1...10_000_000, help: "requests per second one client address may sustain",
                 get: \.rateLimitPerSecond, set: { $0.rateLimitPerSecond = $1 }),
        .integer("rate_limit_burst", in: 1...10_000_000, help: "requests one client address may make at once above the rate",
                 get: \.rateLimitBurst, set: { $0.rateLimitBurst = $1 }),
        .integer("rate_limit_max_clients", in: 16...100_000_000,
                 help: "client addresses whose buckets are kept (refilled ones forgotten first beyond)",
                 get: \.rateLimitMaxClients, set: { $0.rateLimitMaxClients = $1 }),
        .integer("rate_limit_user_per_second", in: 1...10_000_000,
                 help: "requests per second one signed-in user (all sessions together) may sustain",
                 get: \.rateLimitUserPerSecond, set: { $0.rateLimitUserPerSecond = $1 }),
        .integer("rate_limit_user_burst", in: 1...10_000_000,
                 help: "requests one signed-in user may make at once above the rate",
                 get: \.rateLimitUserBurst, set: { $0.rateLimitUserBurst = $1 }),
        .integer("rate_limit_sign_in_per_minute", in: 1...100_000_000,
                 help: "POST /sessions per minute one client address may sustain (sign-in policy)",
                 get: \.rateLimitSignInPerMinute, set: { $0.rateLimitSignInPerMinute = $1 }),
        .integer("rate_limit_sign_in_burst", in: 1...10_000_000,
                 help: "POST /sessions one client address may make at once above the rate",
                 get: \.rateLimitSignInBurst, set: { $0.rateLimitSignInBurst = $1 }),
        .integer("rate_limit_registration_per_minute", in: 1...100_000_000,
                 help: "POST /users per minute one client address may sustain (registration policy)",
                 get: \.rateLimitRegistrationPerMinute, set: { $0.rateLimitRegistrationPerMinute = $1 }),
        .integer("rate_limit_registration_burst", in: 1...10_000_000,
                 help: "POST /users one client address may make at once above the rate",
                 get: \.rateLimitRegistrationBurst, set: { $0.rateLimitRegistrationBurst = $1 }),
        .integer("rate_limit_checkout_per_minute", in: 1...100_000_000,
                 help: "POST /checkout per minute one client address may sustain (checkout policy)",
                 get: \.rateLimitCheckoutPerMinute, set: { $0.rateLimitCheckoutPerMinute = $1 }),
        .integer("rate_limit_checkout_burst", in: 1...10_000_000,
                 help: "POST /checkout one client address may make at once above the rate",
                 get: \.rateLimitCheckoutBurst, set: { $0.rateLimitCheckoutBurst = $1 }),
        .text("rate_limit_scope", accepted: "cluster or process",
              help: "cluster: on PostgreSQL the limits count across every process on the database (leases of a shared bucket); process: each process counts alone",
              check: { ["cluster", "process"].contains($0) },
              get: \.rateLimitScope, set: { $0.rateLimitScope = $1 }),

        .seconds("storage_probe_interval", help: "seconds between probes of unavailable storage, for recovery",
                 get: \.storageProbeIntervalSeconds, set: { $0.storageProbeIntervalSeconds = $1 }),
        .seconds("events_heartbeat_interval", help: "seconds between heartbeat comments on GET /events streams",
                 get: \.eventsHeartbeatSeconds, set: { $0.eventsHeartbeatSeconds = $1 }),
    ]

    /// The addresses of a comma-separated list (spaces around items
    /// allowed); items that are not numeric IPv4 or IPv6 addresses are left out.
    static func addressList(_ list: String) -> Set<String> {
        Set(list.split(separator: ",").map { String($0.filter { $0 != " " }) }.filter(isNumericAddress))
    }

    private static func isNumericAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }

    /// Relations between settings that no single value shows.
    func checkConsistency() throws {
        if maxBufferedBodyBytes < maxBodyBytes {
            throw ConfigurationError("max_buffered_body_bytes (\(maxBufferedBodyBytes)) must be at least max_body_bytes"
                                     + " (\(maxBodyBytes)), or a largest body could never be read")
        }
        if let databaseURL, !(databaseURL.hasPrefix("postgres://") || databaseURL.hasPrefix("postgresql://")) {
            throw ConfigurationError("database_url must be a postgres:// or postgresql:// URL")
        }
        if (adminEmail == nil) != (adminPassword == nil) {
            throw ConfigurationError("admin_email and admin_password must be set together (or neither)")
        }
    }
}
