import Capabilities

/// The users client's tables (migration versions 100–199). Passwords are
/// stored only as argon2id strings, bearer tokens only as SHA-256 hex.
/// Each migration in SQLite's and PostgreSQL's dialect.
enum UserSchema {
    static let migrations: [Migration] = [
        Migration(version: 100, name: "users and sessions", portableSQL: """
            CREATE TABLE users (
                id            TEXT PRIMARY KEY,
                name          TEXT NOT NULL,
                email         TEXT NOT NULL,
                email_key     TEXT NOT NULL UNIQUE,
                password_hash TEXT NOT NULL,
                role          TEXT NOT NULL CHECK (role IN ('customer', 'admin')),
                status        TEXT NOT NULL CHECK (status IN ('active', 'suspended')),
                created_at    INTEGER NOT NULL
            ) STRICT;
            CREATE TABLE sessions (
                id         TEXT PRIMARY KEY,
                user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                token_hash TEXT NOT NULL UNIQUE,
                created_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL
            ) STRICT;
            CREATE INDEX sessions_by_user ON sessions(user_id);
            """),
        // The periodic sweep of expired sessions finds them by expiry.
        Migration(version: 101, name: "sessions by expiry", portableSQL: """
            CREATE INDEX sessions_by_expiry ON sessions(expires_at);
            """),
        // Users are read from storage on a miss, never all at start-up, and
        // listed by keyset on this index.
        Migration(version: 102, name: "users by creation", portableSQL: """
            CREATE INDEX users_by_creation ON users(created_at, id);
            """),
        // Sign-in throttling counted in the database, so wrong passwords
        // spread over replicas are throttled by their total, not per
        // replica. Swept by last use.
        Migration(version: 103, name: "login throttle runs", portableSQL: """
            CREATE TABLE login_runs (
                key      TEXT PRIMARY KEY,
                failures INTEGER NOT NULL,
                last_at  INTEGER NOT NULL
            ) STRICT;
            CREATE INDEX login_runs_by_last ON login_runs(last_at);
            CREATE TABLE login_trusted (
                pair  TEXT PRIMARY KEY,
                since INTEGER NOT NULL
            ) STRICT;
            CREATE INDEX login_trusted_by_since ON login_trusted(since);
            """),
        // Event-stream tickets in the database, so a ticket minted on one
        // replica opens a stream on any (they were in one process's memory).
        // A session's tickets go with it.
        Migration(version: 104, name: "event tickets", portableSQL: """
            CREATE TABLE event_tickets (
                ticket_hash TEXT PRIMARY KEY,
                session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                token_hash  TEXT NOT NULL,
                expires_at  INTEGER NOT NULL
            ) STRICT;
            CREATE INDEX event_tickets_by_session ON event_tickets(session_id, expires_at);
            CREATE INDEX event_tickets_by_expiry ON event_tickets(expires_at);
            """),
        // Each change of a user bumps its row's version, so a user row read
        // late never replaces a newer one in the working set.
        Migration(version: 105, name: "user row versions", portableSQL: """
            ALTER TABLE users ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
            """),
        // Account flows (docs/accounts.md). Users who signed up before
        // verification existed count as verified: nobody asked them to
        // confirm, and a shop turning `require_verified_email` on must not
        // lock its customers out of checkout. A deleted account keeps its
        // row, anonymised, with `deleted_at` set (its status reads
        // `deleted`; the stored status is `suspended`, so every rule about
        // active users and admins already leaves it out). Mailed reset and
        // verification tokens are stored as SHA-256 hex only.
        Migration(version: 106, name: "account flows", portableSQL: """
            ALTER TABLE users ADD COLUMN email_verified INTEGER NOT NULL DEFAULT 1;
            ALTER TABLE users ADD COLUMN deleted_at INTEGER;
            CREATE TABLE account_tokens (
                token_hash TEXT PRIMARY KEY,
                user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                purpose    TEXT NOT NULL CHECK (purpose IN ('reset', 'verify')),
                email_key  TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL,
                used_at    INTEGER
            ) STRICT;
            CREATE INDEX account_tokens_by_user ON account_tokens(user_id, purpose, created_at);
            CREATE INDEX account_tokens_by_expiry ON account_tokens(expires_at);
            """),
    ]
}
