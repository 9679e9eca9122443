import Synchronization

/// The observation tasks of one context. `stopAll()` cancels them, which ends
/// their streams and removes them from the client's broadcaster; a context
/// calls it from `stopObservation()` so that releasing a session stops its
/// observations.
public final class ObservationSet: Sendable {
    private let tasks = Mutex<[Task<Void, Never>]>([])

    public init() {}

    /// Consumes `stream` in a task until it ends or ``stopAll()`` is called,
    /// handing each element to `body`.
    public func observe<Element: Sendable>(
        _ stream: AsyncStream<Element>,
        _ body: @escaping @Sendable (Element) async -> Void
    ) {
        let task = Task {
            for await element in stream {
                await body(element)
            }
        }
        tasks.withLock { $0.append(task) }
    }

    public var count: Int { tasks.withLock { $0.count } }

    public func stopAll() {
        let running = tasks.withLock { tasks in
            defer { tasks = [] }
            return tasks
        }
        for task in running { task.cancel() }
    }

    deinit {
        stopAll()
    }
}
