import AxiomTestSupport
import Axiom
import Capabilities
@testable import CatalogClient
import Domain
import Foundation
import Synchronization
import Testing

/// Where a test's catalogue lives: a SQLite file in a temp directory, or a
/// fresh schema on the PostgreSQL test server (`AXIOM_TEST_DATABASE_URL`).
/// The same value reopens the same data, for restarts.
struct CatalogDatabase: Sendable {
    let backend: StorageBackend
    /// The file's path, or the schema's URL.
    let location: String
    private let directory: TempDirectory

    init(_ backend: StorageBackend = .sqlite) async throws {
        directory = try TempDirectory()
        self.backend = backend
        location = try await backend.database(at: directory.path("db/catalog.db"))
    }

    /// The storage on its own (no client): for seeding and direct reads.
    func open(migrations: [Migration] = CatalogClient.migrations) async throws -> any StorageCapability {
        switch backend {
        case .sqlite:
            try await SQLiteStorage.open(StorageConfiguration(path: location, createDirectory: true), migrations: migrations)
        case .postgres:
            try await PostgresStorage.open(PostgresConfiguration(url: location, readerCount: 1), migrations: migrations)
        }
    }
}

/// One "process run": an orchestrator with the storage capability on the
/// test's database and the catalogue client it made and activated.
typealias CatalogRun = ClientRun<CatalogClient>

extension ClientRun where C == CatalogClient {
    /// Starts a run on `database`, as the composition root would.
    /// `webhooks`: the client enqueues its webhook events, timed by the run's clock.
    static func start(_ database: CatalogDatabase, currency: Currency = .usd,
                      cacheEntries: Int = CatalogClient.defaultCacheEntries,
                      lease: CheckoutLease = .default, webhooks: Bool = false) async throws -> CatalogRun {
        let backend = database.backend
        let clock = ManualClock()
        return try await start(path: database.location, backend: backend, migrations: CatalogClient.migrations,
                               readerCount: 2, clock: clock) { resolver in
            CatalogClient(storage: try backend.access(resolver), currency: currency, cacheEntries: cacheEntries,
                          lease: lease, clock: clock, webhooks: webhooks)
        }
    }

    /// The name `AxiomError.capabilityUnavailable` gives this run's storage.
    var storageName: String {
        get throws {
            switch try database {
            case is PostgresStorage: String(reflecting: PostgresStorage.self)
            default: String(reflecting: SQLiteStorage.self)
            }
        }
    }
}

/// Runs `body` against a started catalogue; always stops it.
/// Without `database`, on a new one of `backend`.
func withCatalog<R>(_ database: CatalogDatabase? = nil, backend: StorageBackend = .sqlite, currency: Currency = .usd,
                    cacheEntries: Int = CatalogClient.defaultCacheEntries, lease: CheckoutLease = .default,
                    webhooks: Bool = false, _ body: (CatalogRun) async throws -> R) async throws -> R {
    let database = if let database { database } else { try await CatalogDatabase(backend) }
    let run = try await CatalogRun.start(database, currency: currency, cacheEntries: cacheEntries, lease: lease,
                                         webhooks: webhooks)
    return try await withCleanup({ await run.stop() }) { try await body(run) }
}

func usd(_ amount: Int64) -> Money { Money(amount: amount, currency: .usd) }

func draft(_ sku: String, name: String? = nil, price: Int64 = 1999, stock: Int = 10, active: Bool = true,
           lowStockThreshold: Int? = nil) -> ProductDraft {
    ProductDraft(sku: sku, name: name ?? "Product \(sku)", description: "About \(sku)", price: usd(price),
                 stock: stock, active: active, lowStockThreshold: lowStockThreshold)
}

/// The `Refusal` `body` throws (recording an issue when it throws
/// something else or nothing).
func domainError(_ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async -> (any Refusal)? {
    do {
        try await body()
        Issue.record("expected a Refusal, nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as any Refusal {
        return error
    } catch {
        Issue.record("expected a Refusal, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// Whether `thrown` is `expected`.
func == <R: Refusal & Equatable>(thrown: (any Refusal)?, expected: R) -> Bool {
    guard let thrown = thrown as? R else { return false }
    return thrown == expected
}

/// The failing fields of a `validation` error.
func fields(_ error: (any Refusal)?) -> [String] {
    (error as? ValidationError)?.fields ?? []
}

/// The result of an async throwing call.
func attempt<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
    do {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}

/// Inserts `count` products straight into the database of a stopped
/// catalogue, as `scripts/seed-scale.sh` does (the search index follows by
/// trigger, or as a generated column): names "Seeded 00000"…, stock 10.
/// Returns their ids in order.
func seedProducts(_ database: CatalogDatabase, count: Int,
                  migrations: [Migration] = CatalogClient.migrations) async throws -> [ProductID] {
    let storage = try await database.open(migrations: migrations)
    let ids = (0 ..< count).map { _ in ProductID(UUID()) }
    let folded = migrations.contains { $0.version == 202 }
    try await storage.writeTransaction { handle in
        for (index, id) in ids.enumerated() {
            let name = "Seeded \(String(index + 100_000).dropFirst())"
            try handle.execute("""
                INSERT INTO products(id, sku, name, description, price_amount, price_currency, stock,
                                     active, version, created_at, updated_at)
                VALUES(?, ?, ?, 'Seeded for a test', 100, 'USD', 10, 1, 1, '2026-01-01T00:00:00.000Z',
                       '2026-01-01T00:00:00.000Z')
                """, id.description, "SEED-\(index)", name)
            if folded {
                try handle.execute("UPDATE products SET name_folded = ? WHERE id = ?", name.lowercased(), id.description)
            }
        }
    }
    await storage.close()
    return ids
}
