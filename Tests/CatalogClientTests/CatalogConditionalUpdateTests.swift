import AxiomTestSupport
@testable import CatalogClient
import Domain
import Foundation
import Testing

/// `update(_:_:unchangedFrom:)`, the catalogue's half of If-Match: the
/// product must still be the value the caller saw when the change commits.
@Suite("CatalogClient conditional updates", .serialized)
struct CatalogConditionalUpdateTests {
    @Test("of concurrent updates that saw one product, exactly one commits; the others are precondition_failed", arguments: StorageBackend.all)
    func oneOfConcurrentWritersWins(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            let seen = try await run.client.create(draft("KETTLE"))
            // Whether a writer is refused by the look at the working set or
            // by the comparison in the write's transaction depends on the
            // interleaving (the actor runs others while a write commits);
            // either way only one commits.
            let outcomes = await withTaskGroup(of: Result<Product, any Error>.self) { group in
                for writer in 0..<8 {
                    group.addTask {
                        do {
                            return .success(try await run.client.update(seen.id, ProductPatch(name: "Writer \(writer)"),
                                                                        unchangedFrom: seen))
                        } catch { return .failure(error) }
                    }
                }
                var all: [Result<Product, any Error>] = []
                for await outcome in group { all.append(outcome) }
                return all
            }
            let winners = outcomes.compactMap { try? $0.get() }
            #expect(winners.count == 1)
            for case .failure(let error) in outcomes {
                #expect(error as? EntityError == EntityError.preconditionFailed(entity: "product"))
            }
            #expect(try await run.client.product(seen.id) == winners.first)
        }
    }

    @Test("a stale value changes nothing; the current one is accepted", arguments: StorageBackend.all)
    func staleValueIsRefused(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            let seen = try await run.client.create(draft("MUG", stock: 5))
            let restocked = try await run.client.update(seen.id, ProductPatch(stock: 9))
            await #expect(throws: EntityError.preconditionFailed(entity: "product")) {
                _ = try await run.client.update(seen.id, ProductPatch(name: "Lost"), unchangedFrom: seen)
            }
            #expect(try await run.client.product(seen.id) == restocked)
            let renamed = try await run.client.update(seen.id, ProductPatch(name: "Mug 2"), unchangedFrom: restocked)
            #expect(renamed.name == "Mug 2")
        }
    }
}
