// Micro-benchmarks of the Axiom runtime, run by hand:
//   swift run -c release AxiomBenchmarks
// Prints the cost of one client action through a context, of one state
// update fanned out to 100 observers, and of one session's life.
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

    func send(_ amount: Int) async throws -> Int {
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

    func send(_ amount: Int) async throws -> Int { try await counter.send(amount) }
}

/// The process's monotonic clock as the sessions' time source.
struct ContinuousTimeSource: TimeSource {
    let origin = ContinuousClock.now
    func monotonicNow() -> Duration { ContinuousClock.now - origin }
}

func nanoseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
}

func report(_ label: String, _ elapsed: Duration, _ count: Int) {
    let each = nanoseconds(elapsed) / Double(count)
    let perSecond = Double(count) / (nanoseconds(elapsed) / 1e9)
    let figure = each >= 1_000 ? "\((each / 10).rounded() / 100) µs" : "\(Int(each.rounded())) ns"
    print("\(label): \(figure) each (\(Int(perSecond)) per second, \(count) runs)")
}

let clock = ContinuousClock()
let orchestrator = try AxiomOrchestrator()
let updates = 20_000
try await orchestrator.registerCapability(NullCapability.self) { NullCapability() }
try orchestrator.registerClient(CounterClient.self, dependencies: [NullCapability.self]) { resolver in
    CounterClient(null: try resolver.handle(NullCapability.self), bufferLimit: updates)
}
try await orchestrator.start()
let context = try await orchestrator.createContext(CounterContext.self, parent: nil)

// 1. One client action through a context (context actor → handle with
//    metrics → client actor → capability handle → state change → publish to
//    no observer).
for _ in 0..<10_000 { _ = try await context.send(1) }
let actions = 200_000
let sequential = try await clock.measure {
    for _ in 0..<actions { _ = try await context.send(1) }
}
report("client action through a context, sequential", sequential, actions)

var contexts: [CounterContext] = []
for _ in 0..<50 { contexts.append(try await orchestrator.createContext(CounterContext.self, parent: nil)) }
let concurrent = try await clock.measure {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for context in contexts {
            group.addTask { for _ in 0..<(actions / 50) { _ = try await context.send(1) } }
        }
        try await group.waitForAll()
    }
}
report("client action through a context, 50 contexts at once", concurrent, actions)

// 2. One state update fanned out to 100 observers: the publisher's cost
//    (yield into 100 buffers) and the cost until all 100 have read it.
let broadcaster = context.counter.client.stateBroadcaster
let streams = (0..<100).map { _ in broadcaster.subscribe() }
let (readersDone, readerDone) = AsyncStream<Int>.makeStream()
let readers = streams.map { stream in
    Task {
        var seen = 0
        for await _ in stream {
            seen += 1
            if seen == updates { break }
        }
        readerDone.yield(seen)
    }
}
var publishTime = Duration.zero
let delivery = try await clock.measure {
    publishTime = try await clock.measure {
        for _ in 0..<updates { _ = try await context.send(1) }
    }
    var finished = 0
    for await seen in readersDone {
        precondition(seen == updates, "an observer missed updates")
        finished += 1
        if finished == 100 { break }
    }
}
for reader in readers { await reader.value }
report("state update published to 100 observers (action included, publisher side)", publishTime, updates)
report("state update delivered to all 100 observers (until the last has read it)", delivery, updates)

// The broadcaster alone, with 100 observers that are not waiting (each
// update goes into 100 bounded buffers; nobody is woken).
let idle = StateBroadcaster<Int>(bufferLimit: 64)
let parked = (0..<100).map { _ in idle.subscribe() }
let idlePublish = clock.measure {
    for value in 0..<updates { idle.publish(value) }
}
report("state update published to 100 observers that are not waiting (broadcaster only)", idlePublish, updates)
idle.finish()
_ = parked.count

// 3. A session's life: created through the factory on first use, released.
let sessions = SessionRegistry<CounterContext>(
    orchestrator: orchestrator, configuration: .init(idleTimeout: .seconds(600), maxSessions: 10_000),
    clock: ContinuousTimeSource())
let lives = 100_000
let sessionTime = try await clock.measure {
    for index in 0..<lives {
        let id = SessionID("bench-\(index)")
        _ = try await sessions.context(for: id)
        await sessions.end(id)
    }
}
report("session created on first use and released", sessionTime, lives)

let metrics = orchestrator.clientMetrics()[0]
print("metrics: \(metrics.actions) actions, \(metrics.errors) errors, mean \(metrics.meanLatencyMicroseconds) µs, "
      + "p50 ≤ \(metrics.p50LatencyMicroseconds) µs, p99 ≤ \(metrics.p99LatencyMicroseconds) µs")
await orchestrator.shutdown()
