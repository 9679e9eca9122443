/// How busy a storage's reader pool is now: its size, the connections
/// running a read, and the reads queued for one. At `busy == size` reads
/// wait; `waiting` above zero for long means the pool is too small for the
/// read load (or the database too slow), the figure behind
/// `axiom_storage_readers`.
public struct ReaderPoolUsage: Sendable, Equatable {
    public let size: Int
    public let busy: Int
    public let waiting: Int
}
