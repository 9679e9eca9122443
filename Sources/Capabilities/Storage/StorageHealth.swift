import Synchronization

/// Availability flag and metrics shared by the writer, the readers and the
/// `SQLiteStorage` facade.
final class StorageHealth: Sendable {
    private let unavailable = Mutex<StorageError?>(nil)
    private let counters = Mutex(StorageMetrics())

    /// The error every write gets while storage is unavailable, or nil.
    var unavailableError: StorageError? { unavailable.withLock { $0 } }

    func markUnavailable(reason: String, sqlite: SQLiteError?) {
        unavailable.withLock { state in
            if state == nil { state = .unavailable(reason: reason, sqlite: sqlite) }
        }
    }

    func markAvailable() {
        unavailable.withLock { $0 = nil }
    }

    var metrics: StorageMetrics { counters.withLock { $0 } }

    func updateMetrics(_ body: (inout StorageMetrics) -> Void) {
        counters.withLock { body(&$0) }
    }
}
