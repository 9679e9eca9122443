import Dispatch

/// A few read-only connections, each used by one holder at a time: a job on
/// the slot's serial Dispatch queue, or a caller of `runNow` on its own
/// thread. A read takes an idle connection or waits (FIFO) for one; waiting
/// costs no thread (`ConnectionSlots`). In WAL mode readers never block the
/// writer nor each other.
final class ReaderPool: Sendable {
    typealias Job = @Sendable (SQLiteConnection?) -> Void

    final class Slot: QueuedSlot, @unchecked Sendable {
        // @unchecked: `connection` is touched only by the slot's holder
        // (taken from and given back to the idle list under the
        // ConnectionSlots Mutex, which also orders successive holders'
        // memory accesses).
        let queue: DispatchQueue
        var connection: SQLiteConnection?
        init(index: Int) {
            queue = DispatchQueue(label: "axiom.storage.reader.\(index)", qos: .userInitiated)
        }
    }

    private let slots: ConnectionSlots<Slot>
    private let configuration: StorageConfiguration

    init(configuration: StorageConfiguration) {
        self.configuration = configuration
        slots = ConnectionSlots((0..<max(1, configuration.readerCount)).map(Slot.init(index:)))
    }

    /// Opens every reader connection (the database must exist: the writer
    /// created it and switched it to WAL).
    func open() async throws {
        for slot in slots.slots {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                slot.queue.async { [configuration] in
                    do {
                        let connection = try SQLiteConnection(path: configuration.path, reader: true, configuration: configuration)
                        try connection.exec("PRAGMA query_only=ON;")
                        if configuration.readerMapSize > 0 {
                            try connection.exec("PRAGMA mmap_size=\(configuration.readerMapSize);")
                        }
                        slot.connection = connection
                        continuation.resume()
                    } catch let error as SQLiteError {
                        continuation.resume(throwing: StorageError.opening(configuration.path, error))
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        }
    }

    /// Readers busy and reads waiting, now.
    var usage: ReaderPoolUsage { slots.usage }

    /// Runs `job` on an idle reader's queue (now, or when one frees up). The
    /// job gets nil once the pool is closed.
    func submit(_ job: @escaping Job) {
        slots.submit { slot in job(slot?.connection) }
    }

    func close() async {
        await slots.close { $0.connection = nil }
    }
}
