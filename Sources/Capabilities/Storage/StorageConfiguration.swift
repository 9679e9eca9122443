/// How to open a `SQLiteStorage`.
public struct StorageConfiguration: Sendable {
    /// The database file. Its directory must exist unless
    /// `createDirectory` is true (see there for why that is off by default).
    public var path: String
    /// Reader connections in the pool (each on its own serial queue).
    public var readerCount: Int
    /// Bytes of the database file the readers read through a memory
    /// mapping (`PRAGMA mmap_size`) rather than copying pages out of the OS's
    /// cache with `pread`; 0 turns it off. One mapping per file serves every
    /// reader (the shared-map VFS, `CSQLiteSharedMap`), so mapped pages count
    /// once in `RssFile`, never in `RssAnon`. SQLite caps it at 2 GiB - 64 KiB.
    public var readerMapSize: Int
    /// Most write requests committed together in one transaction.
    public var maxBatchSize: Int
    /// How long a connection waits for a lock held by another process.
    public var busyTimeoutMilliseconds: Int32
    /// Prepared statements kept per connection (least recently used evicted).
    public var statementCacheCapacity: Int
    /// Optional hard size limit in pages (`PRAGMA max_page_count`): beyond it
    /// writes fail with SQLITE_FULL exactly as on a full disk.
    public var maxPageCount: Int?
    /// Create the database's directory when missing. Off by default so that a
    /// *vanished* data directory is reported as unavailable instead of being
    /// silently replaced by an empty database on re-open; the composition
    /// root turns it on for the very first start.
    public var createDirectory: Bool
    /// This process's name in the change outbox (`changes.origin`): its
    /// follower skips these rows, applied when they were made. Kept by
    /// `reopen`, which reuses the configuration.
    public var changeOrigin: String = ChangeOrigin.make()

    public init(
        path: String,
        readerCount: Int = 3,
        readerMapSize: Int = 0x7fff_0000,
        maxBatchSize: Int = 256,
        busyTimeoutMilliseconds: Int32 = 5_000,
        statementCacheCapacity: Int = 64,
        maxPageCount: Int? = nil,
        createDirectory: Bool = false
    ) {
        self.path = path
        self.readerCount = readerCount
        self.readerMapSize = readerMapSize
        self.maxBatchSize = maxBatchSize
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        self.statementCacheCapacity = statementCacheCapacity
        self.maxPageCount = maxPageCount
        self.createDirectory = createDirectory
    }
}
