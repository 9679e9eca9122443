import Capabilities

/// The sign-in throttle's runs in the database (`login_runs`,
/// `login_trusted`, migration 103), so the replicas of one shop throttle
/// by the total of the wrong passwords they all saw: three replicas
/// counting each in memory let an attacker guess three times as often.
///
/// An attempt loads its three runs *locked*: `INSERT … ON CONFLICT DO
/// UPDATE … RETURNING` takes the row lock on PostgreSQL (concurrent
/// attempts on the same keys wait for the first to commit, and then read
/// its count), and SQLite's single writer serializes the whole transaction.
/// The policy (`LoginThrottle`) then decides on what was loaded, and only
/// the runs it changed are written back, in the same transaction. Keys are
/// locked in one fixed order, so two attempts never deadlock each other.
///
/// Rows are keyed by the SHA-256 of the policy's key, not the key: the
/// account part is whatever email the caller typed, and a 900 kB one
/// overflowed PostgreSQL's B-tree row limit (a 500 on `POST /sessions`,
/// HostileBodyTests on PostgreSQL); the table also keeps no emails or
/// addresses in the clear.
enum LoginThrottleStore {
    private static func rowKey(_ key: String) -> String { TokenDigest.sha256Hex(key) }

    /// Counts the attempt, or returns the seconds to wait (nothing counted).
    static func admit(_ handle: any StorageHandle, policy: LoginThrottle.Policy,
                      account: String, address: String, now: Int64) throws -> Int? {
        var throttle = try load(handle, policy: policy, account: account, address: address, now: now)
        let before = throttle
        if let wait = throttle.admit(account: account, address: address, now: now) { return wait }
        try save(handle, throttle, over: before, account: account, address: address)
        return nil
    }

    /// The password matched: the attempt is given back (see
    /// `LoginThrottle.succeeded`). Runs inside the transaction that opens
    /// the session, so the success path costs no commit of its own.
    static func succeeded(_ handle: any StorageHandle, policy: LoginThrottle.Policy,
                          account: String, address: String, now: Int64) throws {
        var throttle = try load(handle, policy: policy, account: account, address: address, now: now)
        let before = throttle
        throttle.succeeded(account: account, address: address, now: now)
        try save(handle, throttle, over: before, account: account, address: address)
    }

    /// No password was checked for the attempt: given back (see
    /// `LoginThrottle.withdrawn`).
    static func withdrawn(_ handle: any StorageHandle, policy: LoginThrottle.Policy,
                          account: String, address: String, now: Int64) throws {
        var throttle = try load(handle, policy: policy, account: account, address: address, now: now)
        let before = throttle
        throttle.withdrawn(account: account, address: address)
        try save(handle, throttle, over: before, account: account, address: address)
    }

    /// Forgets up to `limit` runs whose window passed and up to `limit`
    /// trusts whose period passed: the tables hold what the last window
    /// saw, not every address ever seen. True when either hit the limit
    /// (more may be left for another sweep step).
    static func sweep(_ handle: any StorageHandle, policy: LoginThrottle.Policy, now: Int64, limit: Int) throws -> Bool {
        let runs = try handle.execute("""
            DELETE FROM login_runs WHERE key IN (SELECT key FROM login_runs WHERE last_at <= ? LIMIT ?)
            """, now - policy.window, limit)
        let trusted = try handle.execute("""
            DELETE FROM login_trusted WHERE pair IN (SELECT pair FROM login_trusted WHERE since <= ? LIMIT ?)
            """, now - policy.trustPeriod, limit)
        return runs == limit || trusted == limit
    }

    private static func load(_ handle: any StorageHandle, policy: LoginThrottle.Policy,
                             account: String, address: String, now: Int64) throws -> LoginThrottle {
        let keys = LoginThrottle.Keys(account: account, address: address)
        var runs: [String: LoginThrottle.Run] = [:]
        for key in keys.all {
            // A key without a row gets an empty one (0 failures, which the
            // policy reads as no run), so there is a row to lock.
            guard let row = try handle.queryOne("""
                INSERT INTO login_runs(key, failures, last_at) VALUES(?, 0, ?)
                ON CONFLICT(key) DO UPDATE SET failures = login_runs.failures
                RETURNING failures, last_at
                """, rowKey(key), now) else { continue }
            let failures: Int64 = try row.get("failures")
            if failures > 0 { runs[key] = LoginThrottle.Run(failures: Int(failures), last: try row.get("last_at")) }
        }
        var trusted: [String: Int64] = [:]
        if let row = try handle.queryOne("SELECT since FROM login_trusted WHERE pair = ?", rowKey(keys.pair)) {
            trusted[keys.pair] = try row.get("since")
        }
        return LoginThrottle(policy: policy, runs: runs, trusted: trusted)
    }

    /// Writes the runs and trust that differ from `before`.
    private static func save(_ handle: any StorageHandle, _ throttle: LoginThrottle, over before: LoginThrottle,
                             account: String, address: String) throws {
        let keys = LoginThrottle.Keys(account: account, address: address)
        for key in keys.all where throttle.runs[key] != before.runs[key] {
            if let run = throttle.runs[key] {
                try handle.execute("UPDATE login_runs SET failures = ?, last_at = ? WHERE key = ?",
                                   run.failures, run.last, rowKey(key))
            } else {
                try handle.execute("DELETE FROM login_runs WHERE key = ?", rowKey(key))
            }
        }
        if let since = throttle.trusted[keys.pair], since != before.trusted[keys.pair] {
            try handle.execute("""
                INSERT INTO login_trusted(pair, since) VALUES(?, ?)
                ON CONFLICT(pair) DO UPDATE SET since = excluded.since
                """, rowKey(keys.pair), since)
        }
    }
}
