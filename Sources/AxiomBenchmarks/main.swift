// Micro-benchmarks of the Axiom runtime, run by hand:
//   swift run -c release AxiomBenchmarks
// Prints the cost of one client action through a context, of one state
// update fanned out to 100 observers, of one session's life, and of one
// session's graph of contexts.
import Axiom

/// A capability with nothing behind it, so the figures are the runtime's.
final class NullCapability: Capability {
    var isAvailable: Bool { true }
    func checkAvailability() async -> Bool { true }
}

/// A stateful client that counts and publishes every change.
actor CounterClient: StatefulClient {
    private let null: CapabilityHandle<NullCapability>
    nonisolated let stateBroadcaster: StateBroadcaster<Int>
    private(set) var state = 0

    init(null: CapabilityHandle<NullCapability>, bufferLimit: Int) {
        self.null = null
        stateBroadcaster = StateBroadcaster(bufferLimit: bufferLimit)
    }

    func add(_ amount: Int) throws -> Int {
        _ = try null.available()
        state += amount
        stateBroadcaster.publish(state)
        return state
    }

    func activate() async throws {}
    func deactivate() async { stateBroadcaster.finish() }
}

actor CounterContext: Context {
    nonisolated let identity: ContextIdentity
    let counter: ClientHandle<CounterClient>

    init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        counter = try creation.client(CounterClient.self)
    }

    func send(_ amount: Int) async throws -> Int { try await counter.call { try await $0.add(amount) } }
}

/// The process's monotonic clock as the sessions' time source.
struct ContinuousTimeSource: TimeSource {
    let origin = ContinuousClock.now
    func monotonicNow() -> Duration { ContinuousClock.now - origin }
    /// Not read by the session registry; the monotonic reading will do.
    func wallClockNow() -> Duration { monotonicNow() }
}

func nanoseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
}

func format(_ nanos: Double) -> String {
    nanos >= 1_000 ? "\((nanos / 10).rounded() / 100) µs" : "\(Int(nanos.rounded())) ns"
}

/// Runs `round` `rounds` times; each returns the time of `count` operations.
/// Prints the best and the median cost of one operation: on a shared machine
/// the best round is the least disturbed one.
func bench(_ label: String, rounds: Int = 5, count: Int, _ round: () async throws -> Duration) async rethrows {
    var each: [Double] = []
    for _ in 0..<rounds {
        each.append(nanoseconds(try await round()) / Double(count))
    }
    each.sort()
    print("\(label): best \(format(each[0])), median \(format(each[each.count / 2])) "
          + "(\(rounds) rounds of \(count))")
}

/// The benchmarks run off the main actor, on the concurrency pool, where a
/// request handler would call a context (top-level code in main.swift is
/// main-actor isolated, and every hop to and from the main queue would be
/// measured too).
nonisolated func runBenchmarks() async throws {
    let clock = ContinuousClock()
    let orchestrator = try AxiomOrchestrator()
    let updates = 2_000
    try await orchestrator.registerCapability(NullCapability.self) { NullCapability() }
    try orchestrator.registerClient(CounterClient.self, dependencies: [NullCapability.self]) { resolver in
        CounterClient(null: try resolver.handle(NullCapability.self), bufferLimit: updates)
    }
    try await orchestrator.start()
    let context = try await orchestrator.createContext(CounterContext.self, parent: nil)

    // 1. One client action through a context: context actor → handle (metrics)
    //    → client actor → capability handle → state change → publish (no
    //    observer yet).
    for _ in 0..<10_000 { _ = try await context.send(1) }
    let actions = 50_000
    try await bench("client action through a context, one caller", count: actions) {
        try await clock.measure { for _ in 0..<actions { _ = try await context.send(1) } }
    }

    var contexts: [CounterContext] = []
    for _ in 0..<50 { contexts.append(try await orchestrator.createContext(CounterContext.self, parent: nil)) }
    try await bench("client action through a context, 50 contexts at once (per action)", count: actions) {
        try await clock.measure {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for context in contexts {
                    group.addTask { for _ in 0..<(actions / 50) { _ = try await context.send(1) } }
                }
                try await group.waitForAll()
            }
        }
    }

    // 2. One state update fanned out to 100 observers that are waiting for it:
    //    the publisher's side (the action plus 100 yields, each waking a reader)
    //    and until the last of the 100 has read it.
    let broadcaster = context.counter.updates
    var publishRounds: [Duration] = []
    try await bench("state update delivered to all 100 waiting observers (action included)", count: updates) {
        let streams = (0..<100).map { _ in broadcaster.subscribe() }
        let (done, finished) = AsyncStream<Int>.makeStream()
        let readers = streams.map { stream in
            Task {
                var seen = 0
                for await _ in stream {
                    seen += 1
                    if seen == updates { break }
                }
                finished.yield(seen)
            }
        }
        let delivery = try await clock.measure {
            publishRounds.append(try await clock.measure {
                for _ in 0..<updates { _ = try await context.send(1) }
            })
            var count = 0
            for await seen in done {
                precondition(seen == updates, "an observer missed updates")
                count += 1
                if count == 100 { break }
            }
        }
        for reader in readers { await reader.value }
        return delivery
    }
    let publishEach = publishRounds.map { nanoseconds($0) / Double(updates) }.sorted()
    print("state update published to 100 waiting observers, publisher side (action included): "
          + "best \(format(publishEach[0])), median \(format(publishEach[publishEach.count / 2]))")

    // The broadcaster alone, with 100 observers that are not waiting: each update
    // goes into 100 bounded buffers and nobody is woken.
    await bench("state update published to 100 observers not waiting (broadcaster only)", count: updates) {
        let idle = StateBroadcaster<Int>(bufferLimit: 64)
        let parked = (0..<100).map { _ in idle.subscribe() }
        let elapsed = clock.measure { for value in 0..<updates { idle.publish(value) } }
        idle.finish()
        precondition(parked.count == 100)
        return elapsed
    }

    // 3. A session's life: made through the factory on first use, then released.
    let sessions = SessionRegistry<CounterContext>(
        orchestrator: orchestrator, configuration: .init(idleTimeout: .seconds(600), maxSessions: 10_000),
        clock: ContinuousTimeSource())
    let lives = 20_000
    var serial = 0
    try await bench("session created on first use and released", count: lives) {
        try await clock.measure {
            for _ in 0..<lives {
                serial += 1
                let id = SessionID("bench-\(serial)")
                _ = try await sessions.withSession(id) { $0 }
                await sessions.end(id)
            }
        }
    }

    // 4. A session's graph: a root, a feature made on first use below it and
    //    a context the feature makes below itself, then all released (a
    //    checkout's SessionContext → CheckoutContext → OrdersContext).
    let graphs = 20_000
    try await bench("session graph of three contexts made on first use and released", count: graphs) {
        try await clock.measure {
            for _ in 0..<graphs {
                let root = try await orchestrator.createContext(GraphRootContext.self, parent: nil)
                _ = try await root.downstream(GraphFeatureContext.self).downstream(CounterContext.self)
                await orchestrator.releaseContext(root.contextID)
            }
        }
    }

    let metrics = orchestrator.clientMetrics()[0]
    print("client metrics: \(metrics.actions) actions, \(metrics.errors) errors, "
          + "mean \(format(metrics.meanLatencyMicroseconds * 1_000)), p50 ≤ \(format(metrics.p50LatencyMicroseconds * 1_000)), "
          + "p99 ≤ \(format(metrics.p99LatencyMicroseconds * 1_000))")
    await orchestrator.shutdown()
}

try await runBenchmarks()
