/// Which clients run on PostgreSQL yet. The server starts on `database_url`
/// only when all of them do: a process where some clients write to
/// PostgreSQL and others to a SQLite file would split one shop's data, so
/// until then start-up stops with this error (issue 13; docs/postgres.md
/// lists what each client still needs).
struct PostgresReadiness: Error, CustomStringConvertible {
    /// Clients whose store code and migrations have no PostgreSQL form yet.
    static let unportedClients = ["CatalogClient"]

    let unported: [String]

    /// Throws when `databaseURL` is set and a client is not ported.
    static func check(databaseURL: String?) throws {
        guard databaseURL != nil, !unportedClients.isEmpty else { return }
        throw PostgresReadiness(unported: unportedClients)
    }

    var description: String {
        let names = unported.joined(separator: ", ")
        return "database_url: client\(unported.count == 1 ? "" : "s") \(names) not yet ported to PostgreSQL"
            + " (the users, carts, orders and payments clients are; see docs/postgres.md). Use the SQLite database setting until then."
    }
}
