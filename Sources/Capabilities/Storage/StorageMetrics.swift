/// Counters of the write path, read by a metrics endpoint (`SQLiteStorage.metrics`).
public struct StorageMetrics: Sendable, Equatable {
    /// Transactions committed (one per batch).
    public var commits: Int = 0
    /// Write requests acknowledged as durable.
    public var writesAcknowledged: Int = 0
    /// Write requests that threw (their own error, a failed commit, …).
    public var writesFailed: Int = 0
    /// Write requests refused because storage was unavailable.
    public var writesRejectedUnavailable: Int = 0
    /// Read closures run.
    public var reads: Int = 0
    /// Times the writer waited for the database server (PostgreSQL; 0 on SQLite).
    public var writerRoundTrips: Int = 0
    /// Times a reader waited for the database server (PostgreSQL; 0 on SQLite).
    public var readerRoundTrips: Int = 0
    /// Batches run again with a savepoint per request after one of their
    /// requests failed without them (PostgreSQL; 0 on SQLite).
    public var batchesRerunWithSavepoints: Int = 0
    /// Requests per committed batch.
    public var batchSizes = Histogram(upperBounds: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024])
    /// Seconds spent in COMMIT (the durable WAL fsync).
    public var commitLatency = Histogram(upperBounds: StorageMetrics.latencyBounds)
    /// Seconds from BEGIN IMMEDIATE to the end of COMMIT, per batch.
    public var batchLatency = Histogram(upperBounds: StorageMetrics.latencyBounds)

    public init() {}

    /// Largest batch committed so far.
    public var largestBatch: Int { Int(batchSizes.max) }

    static let latencyBounds: [Double] = [
        0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
    ]
}
