import AxiomTestSupport
import Capabilities
@testable import CatalogClient
import Domain
import Foundation
import Testing

/// The catalogue's SQL with two writers of one database, as two replicas
/// on one PostgreSQL (or two processes on one SQLite file): each storage
/// has its own write connection, so one writer's transaction cannot see
/// the other's in-memory state, only the rows. The stock rules must hold
/// in the rows alone.
@Suite("CatalogStore with two writers of one database", .serialized)
struct CatalogTwoWriterTests {
    @Test("40 reservations of stock 10 spread over two writers, with renames racing them: exactly 10, no lost update",
          arguments: StorageBackend.all)
    func reservationsAcrossWriters(backend: StorageBackend) async throws {
        let database = try await CatalogDatabase(backend)
        let first = try await database.open()
        let second = try await database.open()
        let product = try CatalogRules.product(from: draft("TWO", stock: 10), id: ProductID(UUID()), currency: .usd)
        _ = try await first.writeTransaction { try CatalogStore.insert($0, product) }
        let writers = [first, second]
        let results = await withTaskGroup(of: Result<Int, any Error>.self) { group in
            for index in 0 ..< 40 {
                let storage = writers[index % 2]
                group.addTask {
                    await attempt {
                        try await storage.writeTransaction {
                            try CatalogStore.reserve($0, CheckoutID(UUID()), [StockLine(productID: product.id, quantity: 1)],
                                                      lease: .default)
                        }.count
                    }
                }
                if index % 8 == 0 {
                    // A read-then-write of the same row from the other writer.
                    let other = writers[(index + 1) % 2]
                    group.addTask {
                        await attempt {
                            try await other.writeTransaction {
                                try CatalogStore.update($0, product.id, ProductPatch(name: "Two \(index)"), currency: .usd)
                            }.written.row.product.stock
                        }
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let failures = results.compactMap { result -> String? in
            guard case .failure(let error) = result else { return nil }
            return (error as? any Refusal)?.code ?? "\(error)"
        }
        #expect(failures.count == 30 && failures.allSatisfy { $0 == "insufficient_stock" }, "\(failures)")
        let stored = try await first.readTransaction { try CatalogStore.fetch($0, product.id) }
        #expect(stored?.product.stock == 0)
        // Every change bumped the version once: 10 reservations, 5 renames.
        #expect(stored?.version == 16)
        let pending = try await second.readTransaction { try CatalogStore.pending($0) }
        #expect(pending.count == 10)
        // Two writers releasing the same checkouts at once restock each once.
        await withTaskGroup(of: Void.self) { group in
            for checkout in pending {
                for storage in writers {
                    group.addTask { _ = try? await storage.writeTransaction { try CatalogStore.release($0, checkout) } }
                }
            }
        }
        #expect(try await second.readTransaction { try CatalogStore.fetch($0, product.id) }?.product.stock == 10)
        await first.close()
        await second.close()
    }
}
