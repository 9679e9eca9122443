import Capabilities
import CatalogClient
import Domain
import Glibc
import HTTPServer
import JobClient
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

    var passwordResetTTLSeconds = 1_800.0
    var passwordResetMaxPerAccount = 3
    var emailVerificationTTLSeconds = 172_800.0
    var requireVerifiedEmail = false

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
    /// Room for many shoppers behind one NAT, far below what one client can
    /// send; load drivers raise it (`scripts/load-test-env.sh`).
    var rateLimitPerSecond = 100
    var rateLimitBurst = 400
    var rateLimitMaxClients = 100_000
    /// Per signed-in user, across their sessions; load drivers raise it
    /// like the address limit.
    var rateLimitUserPerSecond = 20
    var rateLimitUserBurst = 100
    var rateLimitSignInPerMinute = 20
    var rateLimitSignInBurst = 20
    var rateLimitRegistrationPerMinute = 5
    var rateLimitRegistrationBurst = 10
    var rateLimitCheckoutPerMinute = 30
    var rateLimitCheckoutBurst = 30
    var rateLimitPasswordResetPerMinute = 5
    var rateLimitPasswordResetBurst = 5
    /// `cluster`: on PostgreSQL the limits count across every process on the
    /// database (docs/rate-limits.md); a SQLite file has one process.
    var rateLimitScope = "cluster"
    /// PostgreSQL write connections of this process; 0 = from the round trip.
    var postgresWriters = 0

    var storageProbeIntervalSeconds = 2.0
    var eventsHeartbeatSeconds = 15.0
    var mail = MailOptions()
    var webhooks = WebhookOptions()
    var jobsConcurrency = 4
    var jobsPollIntervalSeconds = 0.05
    var jobsLeaseSeconds = 60.0
    var jobsRetentionDays = 7

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

    var jobRunnerSettings: JobRunnerSettings {
        JobRunnerSettings(concurrency: jobsConcurrency, pollInterval: .milliseconds(Int(jobsPollIntervalSeconds * 1000)),
                          lease: .milliseconds(Int(jobsLeaseSeconds * 1000)),
                          retention: .seconds(jobsRetentionDays * 86_400), owner: checkoutLease.owner)
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
    var passwordResetRateLimit: RateLimitPolicy? {
        routeClassLimit("password-reset", perMinute: rateLimitPasswordResetPerMinute, burst: rateLimitPasswordResetBurst)
    }

    /// The account flows' settings; `mailEnabled` is whether a mail
    /// transport is configured.
    func accountSettings(mailEnabled: Bool) -> AccountSettings {
        AccountSettings(mailEnabled: mailEnabled, resetTokenLifetimeSeconds: Int64(passwordResetTTLSeconds.rounded(.up)),
                        verificationTokenLifetimeSeconds: Int64(emailVerificationTTLSeconds.rounded(.up)),
                        resetsPerAccount: passwordResetMaxPerAccount)
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
              check: { !$0.isEmpty && !$0.contains(" ") }, \.host),
        .integer("port", in: 0...65535, help: "TCP port; 0 picks a free one and logs it",
                 \.port),
        .text("database", accepted: "a file path", help: "SQLite database file; its directory is created on first start",
              check: { !$0.isEmpty }, \.databasePath),
        .optionalText("database_url",
                      help: "PostgreSQL instead of SQLite, postgres://user:pass@host:port/db (null: the database file; not with database)",
                      \.databaseURL),
        .integer("postgres_writers", in: 0...64,
                 help: "PostgreSQL write connections, each committing its own batches (0 = 1 when the database answers within 0.5 ms, else 3)",
                 \.postgresWriters),
        .text("currency", accepted: "an ISO 4217 code of three capital letters", help: "currency of every price",
              check: { (try? Currency($0)) != nil }, \.currencyCode),
        .text("log_level", accepted: "one of debug, info, notice, warning, error", help: "lowest level logged",
              check: { name in ServerLogger.Level.allCases.contains { $0.name == name } },
              \.logLevelName),

        .integer("event_loops", in: 0...1024,
                 help: "event loop threads serving connections (0 = one per CPU the process may use: affinity and cgroup quota)",
                 \.eventLoops),
        .integer("max_connections", in: 1...1_000_000, help: "open connections before new ones get 503",
                 \.maxConnections),
        .integer("max_connections_per_address", in: 1...1_000_000,
                 help: "open connections from one client address before new ones from it get 503",
                 \.maxConnectionsPerAddress),
        .list("trusted_proxies", accepted: "comma-separated IP addresses, or empty",
              help: "peer addresses (load balancers) exempt from max_connections_per_address",
              check: { list in list.isEmpty || addressList(list).count == list.split(separator: ",").count },
              \.trustedProxies),
        .integer("max_body_bytes", in: 0...(1 << 30), help: "largest request body (413 beyond)",
                 \.maxBodyBytes),
        .integer("max_buffered_body_bytes", in: 0...(1 << 40),
                 help: "request body bytes buffered across all connections (503 with Retry-After beyond)",
                 \.maxBufferedBodyBytes),
        .integer("max_request_line_bytes", in: 256...(1 << 20), help: "longest request line (414 beyond)",
                 \.maxRequestLineBytes),
        .integer("max_header_bytes", in: 1024...(1 << 20), help: "largest header section (431 beyond)",
                 \.maxHeaderBytes),
        .integer("max_header_fields", in: 1...10_000, help: "most header fields in a request (431 beyond)",
                 \.maxHeaderFields),
        .seconds("header_timeout", help: "seconds a request's header section may take to arrive (408 after)",
                 \.headerTimeoutSeconds),
        .seconds("body_timeout", help: "seconds a request body may stall (408 after)",
                 \.bodyTimeoutSeconds),
        .integer("body_min_rate", in: 0...(1 << 30),
                 help: "bytes per second a request body must average after body_grace (408 below; 0 = no minimum)",
                 \.bodyMinRate),
        .seconds("body_grace", help: "seconds before body_min_rate applies to a request body",
                 \.bodyGraceSeconds),
        .seconds("body_timeout_total", help: "seconds a whole request body may take to arrive (408 after)",
                 \.bodyTimeoutTotalSeconds),
        .seconds("idle_timeout", help: "seconds an idle keep-alive connection stays open",
                 \.idleTimeoutSeconds),
        .seconds("shutdown_deadline", help: "seconds in-flight requests get to finish at shutdown",
                 \.shutdownDeadlineSeconds),

        .seconds("session_ttl", max: 366 * 86_400, help: "seconds a sign-in token stays valid",
                 \.sessionTTLSeconds),
        .seconds("session_idle_timeout", help: "seconds a session's context stays in memory without requests",
                 \.sessionIdleTimeoutSeconds),
        .integer("password_hash_max_waiting", in: 0...100_000,
                 help: "password hashes and checks that may wait for a hashing slot; beyond, 503 password_hashing_busy",
                 \.passwordHashMaxWaiting),
        .integer("max_sessions", in: 1...10_000_000, help: "session contexts kept in memory (least recently used unloaded beyond)",
                 \.maxSessions),
        .integer("catalog_cache_entries", in: 1...10_000_000,
                 help: "products kept in memory (least recently read evicted; the rest are read from SQLite)",
                 \.catalogCacheEntries),
        .integer("cart_cache_entries", in: 1...10_000_000,
                 help: "carts kept in memory (least recently used evicted; the rest are read from SQLite)",
                 \.cartCacheEntries),
        .integer("user_cache_entries", in: 1...10_000_000,
                 help: "users kept in memory (least recently used evicted; the rest are read from SQLite)",
                 \.userCacheEntries),
        .text("change_feed", accepted: "notify or poll",
              help: "how other processes' changes are noticed: notify (PostgreSQL LISTEN) or poll (SQLite always polls)",
              check: { ["notify", "poll"].contains($0) },
              \.changeFeed),
        .seconds("change_feed_poll_interval", max: 60,
                 help: "seconds between reads of the change outbox when polling (ten times this as NOTIFY's safety net)",
                 \.changeFeedPollIntervalSeconds),
        .seconds("change_feed_retention", max: 30 * 86_400,
                 help: "seconds the change outbox keeps a change (a replica further behind drops its caches)",
                 \.changeFeedRetentionSeconds),
        .text("replica_coherence", accepted: "strict or off",
              help: "strict: each request waits until this process has applied every change committed before it (several processes on one database)",
              check: { ["strict", "off"].contains($0) },
              \.replicaCoherence),
        .seconds("login_window", help: "seconds after its last failure when a run of failed sign-ins is forgotten",
                 \.loginWindowSeconds),
        .integer("login_max_failures_per_pair", in: 1...1_000,
                 help: "failed sign-ins for one account from one address before that pair backs off",
                 \.loginFailuresPerPair),
        .integer("login_max_failures_per_account", in: 1...1_000,
                 help: "failed sign-ins for one account before the addresses failing for it back off",
                 \.loginFailuresPerAccount),
        .integer("login_max_failures_per_address", in: 1...1_000_000,
                 help: "failed sign-ins from one address before it backs off (but for accounts it signed in before)",
                 \.loginFailuresPerAddress),
        .seconds("login_max_backoff", help: "longest per-account and per-address back-off (429 Retry-After)",
                 \.loginMaxBackoffSeconds),
        .seconds("login_max_pair_backoff", help: "longest back-off of one address for one account",
                 \.loginMaxPairBackoffSeconds),
        .seconds("login_trust_period", max: 366 * 86_400,
                 help: "seconds a sign-in exempts its account at that address from the address's back-off",
                 \.loginTrustPeriodSeconds),
        .integer("login_max_failures_per_account_unfamiliar", in: 1...1_000,
                 help: "failed sign-ins for one account before every address it has not signed in from backs off",
                 \.loginUnfamiliarFreeFailures),
        .seconds("login_max_unfamiliar_backoff",
                 help: "longest back-off of an address an account has not signed in from, on the account's failures",
                 \.loginMaxUnfamiliarBackoffSeconds),

        .seconds("password_reset_ttl", max: 86_400, help: "seconds a mailed password-reset link works",
                 \.passwordResetTTLSeconds),
        .integer("password_reset_max_per_account", in: 1...100,
                 help: "reset links one account is mailed per hour at most (more requests are answered alike and mail nothing)",
                 \.passwordResetMaxPerAccount),
        .seconds("email_verification_ttl", max: 30 * 86_400, help: "seconds a mailed address-verification link works",
                 \.emailVerificationTTLSeconds),
        .boolean("require_verified_email",
                 help: "refuse checkout (409 email_not_verified) until the account's address is confirmed",
                 \.requireVerifiedEmail),

        .optionalText("admin_email", help: "first admin's email, created at start-up if not registered",
                      \.adminEmail),
        .optionalText("admin_password", help: "first admin's password (prefer the environment to a flag)",
                      \.adminPassword),
        .text("admin_name", accepted: "a non-empty name", help: "first admin's name", check: { !$0.isEmpty },
              \.adminName),
        .optionalText("metrics_token", help: "bearer token GET /metrics requires (anyone may scrape when null)",
                      \.metricsToken),
        .text("ops_host", accepted: "an IPv4 address or host name", help: "address of the operations listener (ops_port)",
              check: { !$0.isEmpty && !$0.contains(" ") }, \.opsHost),
        .optionalInteger("ops_port", in: 0...65535,
                         help: "port of a separate listener for /metrics and /axiom/components (null: the main one serves them)",
                         \.opsPort),

        .optionalText("payment_webhook_secret",
                      help: "secret shared with the payment provider for webhook signatures (null: webhook answers 503)",
                      \.paymentWebhookSecret),
        .integer("payment_webhook_tolerance", in: 1...86_400,
                 help: "seconds a webhook signature's timestamp may be from now",
                 \.paymentWebhookToleranceSeconds),
        .integer("payment_timeout", in: 1...86_400,
                 help: "seconds an order may stay unpaid before it is cancelled and its stock returned",
                 \.paymentTimeoutSeconds),
        .integer("manual_payment_timeout", in: 1...366,
                 help: "days an order paid by a manual method (bank transfer) may wait for an admin to record the money",
                 \.manualPaymentTimeoutDays),
        .optionalText("instance_name",
                      help: "this process's name in the checkout leases it holds, unique per replica and kept across its restarts (null: host:port)",
                      \.instanceName),
        .integer("checkout_lease", in: 1...3_600,
                 help: "seconds other processes' recovery leaves a checkout this process is running alone",
                 \.checkoutLeaseSeconds),
        .integer("idempotency_key_ttl", in: 60...(30 * 86_400),
                 help: "seconds a checkout's Idempotency-Key answers with its order (a new checkout after)",
                 \.idempotencyKeyTTLSeconds),
        .integer("unpaid_orders_per_customer", in: 0...10_000,
                 help: "orders one customer may have waiting for payment at once (0: no bound)",
                 \.unpaidOrdersPerCustomer),
        .integer("unpaid_units_per_customer", in: 0...1_000_000,
                 help: "units one customer's orders waiting for payment may hold in all (0: no bound)",
                 \.unpaidUnitsPerCustomer),
        .boolean("compression", help: "gzip response bodies of compression_min_bytes or more for clients that accept it",
                 \.compression),
        .integer("compression_min_bytes", in: 0...(1 << 30), help: "smallest response body sent gzip-encoded",
                 \.compressionMinBytes),
        .list("cors_allowed_origins", accepted: "comma-separated origins (http[s]://host[:port]), or empty",
              help: "origins whose browser pages may call the API (empty: no CORS fields at all)",
              check: { list in list.isEmpty || originList(list).count == list.split(separator: ",").count },
              \.corsAllowedOrigins),
        .integer("cors_max_age", in: 0...86_400, help: "seconds a browser may cache a CORS preflight answer",
                 \.corsMaxAgeSeconds),
        .integer("catalog_max_age", in: 0...86_400,
                 help: "Cache-Control max-age of product reads in seconds (0: no-cache, revalidate with ETag each time)",
                 \.catalogMaxAgeSeconds),
        .boolean("rate_limit", help: "limit requests per client address (429 rate_limited beyond)",
                 \.rateLimit),
        .integer("rate_limit_per_second", in: 1...10_000_000, help: "requests per second one client address may sustain",
                 \.rateLimitPerSecond),
        .integer("rate_limit_burst", in: 1...10_000_000, help: "requests one client address may make at once above the rate",
                 \.rateLimitBurst),
        .integer("rate_limit_max_clients", in: 16...100_000_000,
                 help: "client addresses whose buckets are kept (refilled ones forgotten first beyond)",
                 \.rateLimitMaxClients),
        .integer("rate_limit_user_per_second", in: 1...10_000_000,
                 help: "requests per second one signed-in user (all sessions together) may sustain",
                 \.rateLimitUserPerSecond),
        .integer("rate_limit_user_burst", in: 1...10_000_000,
                 help: "requests one signed-in user may make at once above the rate",
                 \.rateLimitUserBurst),
        .integer("rate_limit_sign_in_per_minute", in: 1...100_000_000,
                 help: "POST /sessions per minute one client address may sustain (sign-in policy)",
                 \.rateLimitSignInPerMinute),
        .integer("rate_limit_sign_in_burst", in: 1...10_000_000,
                 help: "POST /sessions one client address may make at once above the rate",
                 \.rateLimitSignInBurst),
        .integer("rate_limit_registration_per_minute", in: 1...100_000_000,
                 help: "POST /users per minute one client address may sustain (registration policy)",
                 \.rateLimitRegistrationPerMinute),
        .integer("rate_limit_registration_burst", in: 1...10_000_000,
                 help: "POST /users one client address may make at once above the rate",
                 \.rateLimitRegistrationBurst),
        .integer("rate_limit_checkout_per_minute", in: 1...100_000_000,
                 help: "POST /checkout per minute one client address may sustain (checkout policy)",
                 \.rateLimitCheckoutPerMinute),
        .integer("rate_limit_checkout_burst", in: 1...10_000_000,
                 help: "POST /checkout one client address may make at once above the rate",
                 \.rateLimitCheckoutBurst),
        .integer("rate_limit_password_reset_per_minute", in: 1...100_000_000,
                 help: "POST /password-resets and /password-resets/complete per minute one client address may sustain (password-reset policy)",
                 \.rateLimitPasswordResetPerMinute),
        .integer("rate_limit_password_reset_burst", in: 1...10_000_000,
                 help: "password-reset requests one client address may make at once above the rate",
                 \.rateLimitPasswordResetBurst),
        .text("rate_limit_scope", accepted: "cluster or process",
              help: "cluster: on PostgreSQL the limits count across every process on the database (leases of a shared bucket); process: each process counts alone",
              check: { ["cluster", "process"].contains($0) },
              \.rateLimitScope),

        .seconds("storage_probe_interval", help: "seconds between probes of unavailable storage, for recovery",
                 \.storageProbeIntervalSeconds),
        .seconds("events_heartbeat_interval", help: "seconds between heartbeat comments on GET /events streams",
                 \.eventsHeartbeatSeconds),
        .integer("jobs_concurrency", in: 1...1_000, help: "jobs this process runs at once",
                 \.jobsConcurrency),
        .seconds("jobs_poll_interval", max: 60,
                 help: "longest pause between this process's looks at the job queue for due jobs",
                 \.jobsPollIntervalSeconds),
        .seconds("jobs_lease", max: 86_400,
                 help: "seconds a claimed job belongs to this process (renewed while it runs); after that another takes it over",
                 \.jobsLeaseSeconds),
        .integer("jobs_retention", in: 1...3_650,
                 help: "days finished jobs (succeeded, dead, discarded) are kept before the hourly prune deletes them",
                 \.jobsRetentionDays),
    ] + mailSettings + webhookSettings

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
        if mail.isOn && mail.from == nil {
            throw ConfigurationError("smtp_host is set without mail_from: every mail needs a From address")
        }
    }
}

extension ServerOptions {
    /// `currency` as its setting reads and writes it (checked before it is set).
    var currencyCode: String {
        get { currency.code }
        set { currency = try! Currency(newValue) }
    }

    /// `logLevel` by name (checked before it is set).
    var logLevelName: String {
        get { logLevel.name }
        set { logLevel = ServerLogger.Level.allCases.first { $0.name == newValue } ?? .info }
    }
}
