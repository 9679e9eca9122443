import Axiom
import Capabilities
import Contexts
import Glibc
import HTTPServer
import Presentation
import Synchronization
import UserClient
import WebhookClient

/// Everything `/metrics` reports, gathered at scrape time from each layer's
/// own counters: HTTP (exchange reports, open connections), the Axiom
/// runtime (sessions, contexts, per-client actions, capability
/// availability), storage (commits, group-commit batches), password hashing
/// and the process. Lives in the composition root because only it sees all
/// of these.
final class ServiceMetrics: Sendable {
    let requests = HTTPRequestMetrics()
    private let orchestrator: AxiomOrchestrator
    private let startTime: Double
    private let server = Mutex<HTTPServer?>(nil)
    let jobRunner: JobRunnerContext
    /// The `per-user` and route-class limiters.
    private let applicationLimiters: [RateLimiter]
    private let loginDecisions: LoginThrottleCounts
    private let paymentAnomalies: @Sendable () -> Int

    private let changeFeed: ChangeFeed
    let webhooks: WebhookDeliveryCounters

    init(orchestrator: AxiomOrchestrator, applicationLimiters: [RateLimiter], loginDecisions: LoginThrottleCounts,
         paymentAnomalies: @escaping @Sendable () -> Int, changeFeed: ChangeFeed, jobRunner: JobRunnerContext,
         webhooks: WebhookDeliveryCounters) {
        self.jobRunner = jobRunner
        self.webhooks = webhooks
        self.paymentAnomalies = paymentAnomalies
        self.changeFeed = changeFeed
        self.orchestrator = orchestrator
        self.applicationLimiters = applicationLimiters
        self.loginDecisions = loginDecisions
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        startTime = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// The server is made after its routes (this among them), hence attached late.
    func attach(_ server: HTTPServer) {
        self.server.withLock { $0 = server }
    }

    func exposition(sessions: SessionRegistry<SessionContext>) async -> String {
        let workingSets = await orchestrator.workingSetUsage()
        var text = PrometheusText()
        text.family("axiom_build_info", "gauge", "Always 1; the labels name the build.")
        text.sample("axiom_build_info", [("version", DiscoveryRoutes.version)], 1)

        requests.write(to: &text)
        text.family("axiom_usable_cpus", "gauge",
                    "CPUs the process may use: its affinity mask capped by its cgroup's CPU quota, rounded up.",
                    value: UsableCPUs.current.count)
        text.family("axiom_event_loops", "gauge", "Event loop threads serving connections.",
                    value: server.withLock { $0?.eventLoopCount ?? 0 })
        text.family("axiom_http_open_connections", "gauge", "Client connections open now.",
                    value: server.withLock { $0?.openConnections ?? 0 })
        text.family("axiom_http_streams_open", "gauge", "Streaming responses (/events streams) being written now.",
                    value: server.withLock { $0?.openStreams ?? 0 })
        text.family("axiom_http_buffered_body_bytes", "gauge",
                    "Request body bytes buffered now, against max_buffered_body_bytes.",
                    value: server.withLock { $0?.bufferedBodyBytes ?? 0 })
        if let statistics = server.withLock({ $0?.statistics }) {
            text.family("axiom_http_connections_refused_total", "counter",
                        "Connections answered 503 and closed, by the limit they met.")
            text.sample("axiom_http_connections_refused_total", [("reason", "max_connections")],
                        statistics.refusedOverCapacity)
            text.sample("axiom_http_connections_refused_total", [("reason", "max_connections_per_address")],
                        statistics.refusedOverAddressLimit)
            text.family("axiom_http_bodies_refused_total", "counter",
                        "Requests answered 503 because their body did not fit max_buffered_body_bytes.",
                        value: statistics.refusedOverBodyBudget)
            text.family("axiom_http_connections_reclaimed_total", "counter",
                        "Idle connections closed at max_connections to admit a new one.", value: statistics.reclaimed)
        }
        writeRateLimits(to: &text)

        writeRuntime(to: &text, sessions: sessions)
        text.family("axiom_payment_anomalies_total", "counter",
                    "Provider refunds and chargebacks kept as anomalies, not applied (GET /payments/anomalies).",
                    value: paymentAnomalies())
        Self.writeWorkingSets(workingSets, to: &text)
        writeStorage(to: &text)
        Self.writeChangeFeed(changeFeed.metrics, to: &text)
        await writeJobs(to: &text)
        writeWebhooks(to: &text)
        writePasswordHashing(to: &text)
        writeProcess(to: &text)
        return text.text
    }

    /// One series for every rate-limit policy, by `policy`: the server's
    /// `per-address` buckets, the `per-user` ones, and sign-in back-off
    /// (`login`, refusals answered 429 too_many_attempts).
    private func writeRateLimits(to text: inout PrometheusText) {
        let limiters = [server.withLock { $0?.rateLimiter }].compactMap { $0 } + applicationLimiters
        text.family("axiom_http_rate_limit_requests_total", "counter",
                    "Requests to rate-limited routes, by policy and the limiter's decision (refused: 429).")
        for limiter in limiters {
            text.sample("axiom_http_rate_limit_requests_total",
                        [("policy", limiter.policy.name), ("decision", "allowed")], limiter.allowed)
            text.sample("axiom_http_rate_limit_requests_total",
                        [("policy", limiter.policy.name), ("decision", "refused")], limiter.refused)
        }
        text.sample("axiom_http_rate_limit_requests_total", [("policy", "login"), ("decision", "allowed")],
                    loginDecisions.allowed)
        text.sample("axiom_http_rate_limit_requests_total", [("policy", "login"), ("decision", "refused")],
                    loginDecisions.refused)
        guard !limiters.isEmpty else { return }
        text.family("axiom_http_rate_limit_clients", "gauge",
                    "Token buckets held now, by policy (addresses or users), against rate_limit_max_clients each.")
        for limiter in limiters {
            text.sample("axiom_http_rate_limit_clients", [("policy", limiter.policy.name)], limiter.trackedClients)
        }
        writeSharedRateLimits(limiters, to: &text)
    }

    /// With `rate_limit_scope: cluster` on PostgreSQL: leases taken from
    /// the shared buckets, exchanges that failed, and whether the policy
    /// counts cluster-wide now (0: on this process's own buckets). The
    /// families are declared without samples where no policy is shared, so
    /// the fleet's rules read the same names from every replica.
    private func writeSharedRateLimits(_ limiters: [RateLimiter], to text: inout PrometheusText) {
        let shared = limiters.filter { $0.sharedLease != nil }
        text.family("axiom_http_rate_limit_leases_total", "counter",
                    "Leases of tokens granted by the shared rate-limit buckets, by policy.")
        for limiter in shared {
            text.sample("axiom_http_rate_limit_leases_total", [("policy", limiter.policy.name)], limiter.sharedLeases)
        }
        text.family("axiom_http_rate_limit_shared_failures_total", "counter",
                    "Exchanges with the shared rate-limit buckets that failed (the policy then counts per process).")
        for limiter in shared {
            text.sample("axiom_http_rate_limit_shared_failures_total", [("policy", limiter.policy.name)],
                        limiter.sharedFailures)
        }
        text.family("axiom_http_rate_limit_shared", "gauge",
                    "1 while the policy counts cluster-wide, 0 while it falls back to this process's own buckets.")
        for limiter in shared {
            text.sample("axiom_http_rate_limit_shared", [("policy", limiter.policy.name)],
                        limiter.isCountingShared ? 1 : 0)
        }
    }

    private func writeRuntime(to text: inout PrometheusText, sessions: SessionRegistry<SessionContext>) {
        let statistics = sessions.statistics
        text.family("axiom_sessions_live", "gauge", "Signed-in sessions whose context is loaded.",
                    value: sessions.count)
        text.family("axiom_sessions_released_total", "counter", "Session contexts released, by reason.", by: "reason",
                    [("ended", statistics.ended), ("expired", statistics.expired), ("evicted", statistics.evicted)])
        text.family("axiom_sessions_created_total", "counter", "Session contexts created.", value: statistics.created)
        text.family("axiom_contexts_live", "gauge", "Contexts registered in the runtime's graph.",
                    value: orchestrator.contextRegistry.count)

        let clients = orchestrator.clientMetrics()
        text.family("axiom_client_actions_total", "counter", "Actions processed per client.")
        for client in clients {
            text.sample("axiom_client_actions_total", [("client", Self.shortName(client.client))], Double(client.actions))
        }
        text.family("axiom_client_action_errors_total", "counter", "Actions that threw, per client.")
        for client in clients {
            text.sample("axiom_client_action_errors_total", [("client", Self.shortName(client.client))], Double(client.errors))
        }
        text.family("axiom_client_action_duration_seconds", "histogram", "Action latency per client.")
        for client in clients {
            // Power-of-two nanosecond buckets (bucket i: below 2^i ns),
            // exposed at every second power: 1 µs … 17 s.
            let powers = Array(stride(from: 10, through: 34, by: 2))
            var counts: [UInt64] = []
            var lower = 0
            for power in powers {
                counts.append(client.latencyBuckets[lower...power].reduce(0, +))
                lower = power + 1
            }
            counts.append(client.latencyBuckets[lower...].reduce(0, +))
            text.histogram("axiom_client_action_duration_seconds", [("client", Self.shortName(client.client))],
                           bounds: powers.map { Double(UInt64(1) << UInt64($0)) / 1e9 }, counts: counts,
                           sum: client.totalLatencySeconds)
        }

        text.family("axiom_capability_available", "gauge", "1 when the capability reports itself available.")
        for entry in orchestrator.capabilityRegistry.availability {
            text.sample("axiom_capability_available", [("capability", Self.shortName(entry.capability))],
                        entry.isAvailable ? 1 : 0)
        }
    }

    /// The clients' bounded working sets: whether a bound such as
    /// `catalog_cache_entries` holds what the traffic reads (every miss is
    /// an indexed read from storage).
    private static func writeWorkingSets(_ sets: [WorkingSetUsage], to text: inout PrometheusText) {
        text.family("axiom_working_set_entries", "gauge", "Entries a client's working set holds now, by set.")
        for set in sets { text.sample("axiom_working_set_entries", [("set", set.name)], set.entries) }
        text.family("axiom_working_set_capacity", "gauge", "The most entries a working set may hold (its configured bound).")
        for set in sets { text.sample("axiom_working_set_capacity", [("set", set.name)], set.capacity) }
        text.family("axiom_working_set_lookups_total", "counter",
                    "Lookups in a working set, by set and result (a miss reads storage).")
        for set in sets {
            text.sample("axiom_working_set_lookups_total", [("set", set.name), ("result", "hit")], Double(set.hits))
            text.sample("axiom_working_set_lookups_total", [("set", set.name), ("result", "miss")], Double(set.misses))
        }
    }

    private func writeStorage(to text: inout PrometheusText) {
        // Whichever backend the service runs on: both count the same things.
        let registry = orchestrator.capabilityRegistry
        let metrics: StorageMetrics
        let readers: ReaderPoolUsage
        let writers: Int
        if let sqlite = try? registry.resolve(SQLiteStorage.self) {
            (metrics, readers, writers) = (sqlite.metrics, sqlite.readerUsage, 1)
        } else if let postgres = try? registry.resolve(PostgresStorage.self) {
            (metrics, readers, writers) = (postgres.metrics, postgres.readerUsage, postgres.writerCount)
        } else {
            return
        }
        text.family("axiom_storage_writers", "gauge",
                    "Write connections, each group-committing its own batches (PostgreSQL's postgres_writers; 1 on SQLite).",
                    value: writers)
        text.family("axiom_storage_readers", "gauge",
                    "The read connection pool: its size, connections running a read, reads waiting for one.",
                    by: "state",
                    [("size", readers.size), ("busy", readers.busy), ("waiting", readers.waiting)])
        text.family("axiom_storage_commits_total", "counter", "Write transactions committed (one per group-commit batch).",
                    value: metrics.commits)
        text.family("axiom_storage_writes_total", "counter", "Write requests, by outcome.", by: "outcome",
                    [("acknowledged", metrics.writesAcknowledged), ("failed", metrics.writesFailed),
                     ("rejected_unavailable", metrics.writesRejectedUnavailable)])
        text.family("axiom_storage_reads_total", "counter", "Read transactions run.", value: metrics.reads)
        text.family("axiom_storage_round_trips_total", "counter",
                    "Times a connection waited for the database server (PostgreSQL; a pipeline is one), by connection.",
                    by: "connection",
                    [("writer", metrics.writerRoundTrips), ("reader", metrics.readerRoundTrips)])
        text.family("axiom_storage_batch_reruns_total", "counter",
                    "Write batches run again with a savepoint per request after a request failed without them (PostgreSQL).",
                    value: metrics.batchesRerunWithSavepoints)
        text.family("axiom_storage_commit_duration_seconds", "histogram", "Time in COMMIT (the durable WAL flush, local or on the PostgreSQL server).")
        text.histogram("axiom_storage_commit_duration_seconds", metrics.commitLatency)
        text.family("axiom_storage_batch_duration_seconds", "histogram", "Time from BEGIN to the end of COMMIT, per batch.")
        text.histogram("axiom_storage_batch_duration_seconds", metrics.batchLatency)
        text.family("axiom_storage_batch_size", "histogram", "Write requests per committed batch (group commit).")
        text.histogram("axiom_storage_batch_size", metrics.batchSizes)
    }

    private func writePasswordHashing(to text: inout PrometheusText) {
        guard let hasher = try? orchestrator.capabilityRegistry.resolve(PasswordHasher.self) else { return }
        let statistics = hasher.statistics
        text.family("axiom_password_operations_total", "counter", "Argon2id operations, by kind.", by: "kind",
                    [("hash", statistics.hashes), ("verify", statistics.verifications)])
        text.family("axiom_password_operations_running", "gauge", "Argon2id operations running now (bounded by the pool).",
                    value: statistics.running)
        text.family("axiom_password_operations_waiting", "gauge", "Argon2id operations waiting for a pool slot.",
                    value: hasher.waiting)
    }

    private func writeProcess(to text: inout PrometheusText) {
        if let resident = ProcessStatistics.residentBytes() {
            text.family("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", value: resident)
        }
        if let open = ProcessStatistics.openDescriptors() {
            text.family("process_open_fds", "gauge", "Number of open file descriptors.", value: open)
        }
        if let limit = ProcessStatistics.maxDescriptors() {
            text.family("process_max_fds", "gauge", "Maximum number of open file descriptors.", value: limit)
        }
        if let cpu = ProcessStatistics.cpuSeconds() {
            text.family("process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.",
                        value: cpu)
        }
        text.family("process_start_time_seconds", "gauge", "Start time of the process since the Unix epoch in seconds.",
                    value: startTime)
    }

    /// `Capabilities.SQLiteStorage` → `SQLiteStorage`.
    static func shortName(_ qualified: String) -> String {
        qualified.split(separator: ".").last.map(String.init) ?? qualified
    }
}

extension PrometheusText {
    /// One of the storage capability's fixed-bucket histograms.
    mutating func histogram(_ name: String, _ histogram: Histogram) {
        self.histogram(name, bounds: histogram.upperBounds, counts: histogram.counts.map(UInt64.init), sum: histogram.sum)
    }
}
