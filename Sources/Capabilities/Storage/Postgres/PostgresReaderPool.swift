import Dispatch

/// A bounded set of read connections, each confined to its own serial
/// Dispatch queue and connected lazily on first use. A connection that
/// broke is dropped and the next read on its slot connects again, so reads
/// recover by themselves once the server is back. A read waits (FIFO, no
/// thread held) when every slot is busy.
final class PostgresReaderPool: Sendable {
    typealias Job = @Sendable (Slot?) -> Void

    final class Slot: QueuedSlot, @unchecked Sendable {
        // @unchecked: `connection` is touched only on the slot's queue.
        let queue: DispatchQueue
        private var connection: PostgresConnection?
        private let configuration: PostgresConfiguration

        init(index: Int, configuration: PostgresConfiguration) {
            queue = DispatchQueue(label: "axiom.storage.postgres.reader.\(index)", qos: .userInitiated)
            self.configuration = configuration
        }

        /// The slot's connection, connecting when there is none or it broke. On `queue` only.
        func connected() throws -> PostgresConnection {
            if let connection, connection.isHealthy { return connection }
            connection = nil
            let fresh = try PostgresConnection(url: configuration.url,
                                               statementCacheCapacity: configuration.statementCacheCapacity)
            connection = fresh
            return fresh
        }

        func disconnect() { connection = nil }
    }

    private let slots: ConnectionSlots<Slot>

    init(configuration: PostgresConfiguration) {
        slots = ConnectionSlots((0..<max(1, configuration.readerCount)).map { Slot(index: $0, configuration: configuration) })
    }

    /// Readers busy and reads waiting, now.
    var usage: ReaderPoolUsage { slots.usage }

    /// Runs `job` on an idle slot's queue (now, or when one frees up); nil once closed.
    func submit(_ job: @escaping Job) {
        slots.submit(job)
    }

    func close() async {
        await slots.close { $0.disconnect() }
    }
}
