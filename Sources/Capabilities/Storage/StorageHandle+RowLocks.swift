extension StorageHandle {
    /// Appended to a `SELECT` inside a write transaction that reads a row
    /// in order to change it: on PostgreSQL (`READ COMMITTED`) the read
    /// locks the row, so a second replica reading it to change it waits for
    /// the first's commit and then reads the committed row, instead of both
    /// changing the same old row and one overwriting the other. SQLite
    /// needs nothing: its one writer (across processes, the database lock
    /// of `BEGIN IMMEDIATE`) already holds the whole database.
    public var lockingRead: String {
        switch dialect {
        case .postgres: " FOR UPDATE"
        case .sqlite: ""
        }
    }
}
