import Synchronization

/// The observation tasks of one context. `stopAll()` cancels them, which ends
/// their streams and removes them from the client's broadcaster; a context
/// calls it from `stopObservation()` so that releasing a session stops its
/// observations.
final class ObservationSet: Sendable {
    private let tasks = Mutex<[Task<Void, Never>]>([])

    init() {}

    /// Consumes `stream` in a task until it ends or ``stopAll()`` is called,
    /// handing each element to `body`.
    func observe<Element: Sendable>(
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

    var count: Int { tasks.withLock { $0.count } }

    func stopAll() {
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
