/// How `PostgresStorage` connects and batches.
public struct PostgresConfiguration: Sendable {
    /// A libpq connection URI, `postgres://user:pass@host:port/db`.
    public var url: String
    /// Read connections, each on its own queue, connected on first use.
    public var readerCount: Int
    /// Most durable writes committed in one transaction.
    public var maxBatchSize: Int
    /// Write connections, each group-committing its own batches on its own
    /// queue. A write goes to an idle one, else to the one with the fewest
    /// waiting. More than one pays where every statement waits on the
    /// network (a database on another host): one connection's batch is a
    /// chain of round trips, and the others' batches run meanwhile. Where
    /// the database answers in microseconds they only split the batches,
    /// and each commit costs its CPU. 0: chosen at `open` from the measured
    /// round trip (`PostgresWriterCount`).
    public var writerCount: Int = 1
    /// Prepared statements kept per connection; statements beyond it run
    /// unprepared (`PQexecParams`).
    public var statementCacheCapacity: Int
    /// How often a batch that hit a serialization failure (40001) or a
    /// deadlock (40P01) is run again before its requests fail.
    public var maxRetries: Int
    /// How long a write statement waits on a row lock another batch holds
    /// before its request is taken out of this batch and put first in the
    /// next (`PostgresGroupCommitWriter`): two replicas' batches that lock
    /// the same rows in opposite orders part after this instead of after
    /// PostgreSQL's `deadlock_timeout`.
    public var lockWait: Duration = .milliseconds(100)
    /// `idle_in_transaction_session_timeout` of the write connection: a
    /// writer stopped inside a transaction (a paused process) holds the
    /// change feed's horizon (`ChangeOutbox`) back for every replica until
    /// PostgreSQL ends its session.
    public var idleInTransactionTimeout: Duration = .seconds(5)
    /// How long the writer keeps trying to ask PostgreSQL whether a batch
    /// committed when the connection broke after its COMMIT was sent; past
    /// it the batch's requests fail with `StorageError.outcomeUnknown`.
    /// The writer takes no other batch meanwhile.
    public var commitOutcomeWait: Duration = .seconds(2)
    /// This process's name in the change outbox (`changes.origin`): its
    /// follower skips these rows, applied when they were made. Kept by
    /// `reopen`, which reuses the configuration.
    public var changeOrigin: String = ChangeOrigin.make()

    public init(url: String, readerCount: Int = 3, maxBatchSize: Int = 256,
                statementCacheCapacity: Int = 128, maxRetries: Int = 5) {
        self.url = url
        self.readerCount = readerCount
        self.maxBatchSize = maxBatchSize
        self.statementCacheCapacity = statementCacheCapacity
        self.maxRetries = maxRetries
    }
}
