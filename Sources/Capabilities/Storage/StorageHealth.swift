import Synchronization

/// Availability flag and metrics shared by the writer, the readers and the
/// `SQLiteStorage` facade.
final class StorageHealth: Sendable {
    private let unavailable = Mutex<StorageError?>(nil)
    /// Whether `unavailable` holds an error, set under its lock and read
    /// without it: every batch of writes asks, and storage is almost always
    /// available, so the answer is one load rather than a lock.
    private let isUnavailable = Atomic<Bool>(false)
    private let counters = Mutex(StorageMetrics())

    /// The error every write gets while storage is unavailable, or nil.
    var unavailableError: StorageError? {
        guard isUnavailable.load(ordering: .acquiring) else { return nil }
        return unavailable.withLock { $0 }
    }

    func markUnavailable(reason: String, sqlite: SQLiteError?) {
        unavailable.withLock { state in
            if state == nil { state = .unavailable(reason: reason, sqlite: sqlite) }
            isUnavailable.store(true, ordering: .releasing)
        }
    }

    func markAvailable() {
        unavailable.withLock { state in
            state = nil
            isUnavailable.store(false, ordering: .releasing)
        }
    }

    var metrics: StorageMetrics { counters.withLock { $0 } }

    func updateMetrics(_ body: (inout StorageMetrics) -> Void) {
        counters.withLock { body(&$0) }
    }
}
