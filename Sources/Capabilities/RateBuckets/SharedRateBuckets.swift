/// The `rate_buckets` table: token buckets kept in the database, so that
/// several processes on it count a rate limit together. A process never
/// waits on it for a request: it leases tokens from a bucket in batches,
/// ahead of need, and gives unspent ones back (the HTTP server's
/// `ClusterTokens`). Time is the database's clock, so the processes' own
/// clocks do not matter.
///
/// Each exchange is one `INSERT … ON CONFLICT DO UPDATE … RETURNING` over
/// a batch of keys: the bucket is refilled by time arithmetic, the tokens
/// given back are added and the lease is cut in the same row update, under
/// the row's lock, so two processes taking from one bucket at once never
/// read the same tokens. A missing row is a full bucket.
public enum SharedRateBuckets {
    /// What one key asks of its bucket: up to `want` tokens, after giving
    /// back `returning` unspent ones (one of the two is 0).
    public struct Request: Sendable, Hashable {
        public let key: String
        public let want: Int
        public let returning: Int

        public init(key: String, want: Int, returning: Int) {
            self.key = key
            self.want = max(0, want)
            self.returning = max(0, returning)
        }
    }

    /// What a bucket gave: `granted` whole tokens, and the tokens it kept.
    public struct Grant: Sendable, Hashable {
        public let granted: Int
        public let bucketLeft: Double
    }

    /// Keys a statement carries at most (two bound values each).
    public static let maxBatch = 500

    /// Applied with the bookkeeping tables by both migration runners: the
    /// table belongs to no client. No index on `updated_at`: the prune
    /// scans it once a fill time, and an index would turn every lease's
    /// update into a non-HOT one.
    static let sqliteSchema = """
        CREATE TABLE IF NOT EXISTS rate_buckets (
            policy     TEXT NOT NULL,
            key        TEXT NOT NULL,
            tokens     REAL NOT NULL,
            updated_at REAL NOT NULL,
            requested  INTEGER NOT NULL,
            granted    INTEGER NOT NULL,
            PRIMARY KEY (policy, key)
        ) STRICT;
        """

    static let postgresSchema = """
        CREATE TABLE IF NOT EXISTS rate_buckets (
            policy     TEXT NOT NULL,
            key        TEXT NOT NULL,
            tokens     DOUBLE PRECISION NOT NULL,
            updated_at DOUBLE PRECISION NOT NULL,
            requested  BIGINT NOT NULL,
            granted    BIGINT NOT NULL,
            PRIMARY KEY (policy, key)
        );
        """

    /// Gives back and leases for every request (keys distinct, at most
    /// `maxBatch`) of `policy`'s buckets of `capacity` tokens refilled at
    /// `rate` a second; answers by key. Rows go in key order, so two
    /// processes' batches lock shared rows in the same order.
    public static func exchange(_ handle: any StorageHandle, policy: String, rate: Double, capacity: Int,
                                _ requests: [Request]) throws -> [String: Grant] {
        guard !requests.isEmpty else { return [:] }
        let sql = SQL(handle.dialect, rate: rate, capacity: capacity)
        var rows: [String] = []
        var values: [StorageValue] = []
        for request in requests.sorted(by: { $0.key < $1.key }) {
            // A new bucket starts full; tokens given back to one are not owed.
            let granted = min(request.want, capacity)
            let requested = request.want > 0 ? request.want : -request.returning
            rows.append("(?, ?, \(capacity - granted), \(sql.now), \(requested), \(granted))")
            values += [.text(policy), .text(request.key)]
        }
        let refilled = sql.least(sql.capacity, """
            rate_buckets.tokens + \(sql.greatest("0", "\(sql.now) - rate_buckets.updated_at")) * \(sql.rate)
            + \(sql.greatest("0", "-excluded.requested"))
            """)
        let granted = sql.least(sql.greatest("0", "excluded.requested"), sql.floor(refilled))
        let statement = """
            INSERT INTO rate_buckets(policy, key, tokens, updated_at, requested, granted)
            VALUES \(rows.joined(separator: ", "))
            ON CONFLICT(policy, key) DO UPDATE SET
                tokens = \(refilled) - \(granted),
                granted = \(granted),
                requested = excluded.requested,
                updated_at = \(sql.greatest("rate_buckets.updated_at", sql.now))
            RETURNING key, tokens, granted
            """
        var grants: [String: Grant] = [:]
        for row in try handle.query(statement, arguments: values) {
            grants[try row.get("key")] = Grant(granted: Int(try row.get("granted") as Int64),
                                               bucketLeft: try row.get("tokens"))
        }
        return grants
    }

    /// Deletes `policy`'s buckets untouched for the time an empty one takes
    /// to fill: they are full, as a missing row is. Returns how many.
    @discardableResult
    public static func prune(_ handle: any StorageHandle, policy: String, rate: Double, capacity: Int) throws -> Int {
        let sql = SQL(handle.dialect, rate: rate, capacity: capacity)
        return try handle.execute("DELETE FROM rate_buckets WHERE policy = ? AND updated_at < \(sql.now) - \(sql.fillSeconds)",
                                  policy)
    }

    /// The fragments the two dialects spell differently. Numbers are
    /// written into the statement (they come from the configuration, never
    /// from a request); keys are bound.
    private struct SQL {
        let now: String
        let rate: String
        let capacity: String
        let fillSeconds: String
        private let dialect: SQLDialect

        init(_ dialect: SQLDialect, rate: Double, capacity: Int) {
            self.dialect = dialect
            let fill = Double(capacity) / rate
            switch dialect {
            case .sqlite:
                now = "((julianday('now') - 2440587.5) * 86400.0)"
                self.rate = "\(rate)"
                self.capacity = "\(Double(capacity))"
                fillSeconds = "\(fill)"
            case .postgres:
                now = "extract(epoch from clock_timestamp())::float8"
                self.rate = "\(rate)::float8"
                self.capacity = "\(Double(capacity))::float8"
                fillSeconds = "\(fill)::float8"
            }
        }

        func least(_ a: String, _ b: String) -> String {
            dialect == .sqlite ? "min(\(a), \(b))" : "least(\(a), \(b))"
        }

        func greatest(_ a: String, _ b: String) -> String {
            dialect == .sqlite ? "max(\(a), \(b))" : "greatest(\(a), \(b))"
        }

        /// Of a value never below 0: SQLite's CAST truncates (which is the
        /// floor there); PostgreSQL's would round.
        func floor(_ value: String) -> String {
            dialect == .sqlite ? "CAST(\(value) AS INTEGER)" : "floor(\(value))"
        }
    }
}
