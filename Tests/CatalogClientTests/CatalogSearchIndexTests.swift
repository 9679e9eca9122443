import Axiom
import AxiomTestSupport
import Capabilities
@testable import CatalogClient
import Dispatch
import Domain
import Foundation
import Testing

@Suite("CatalogClient search index upkeep: merged into one segment while writes go through", .serialized)
struct CatalogSearchIndexTests {
    /// `batches` write transactions of `perBatch` products each: FTS5 adds
    /// a segment per transaction (and merges four of a level), as a bulk
    /// import in batches leaves it. Names draw on a few words, so searches
    /// have several matches in several segments.
    private func seedInBatches(_ client: CatalogClient, batches: Int, perBatch: Int) async throws {
        let words = ["oak", "brass", "lamp", "zinc", "chair", "shelf", "linen", "copper"]
        for batch in 0..<batches {
            let products = try (0..<perBatch).map { index in
                let n = batch * perBatch + index
                return try CatalogRules.product(
                    from: ProductDraft(sku: "B-\(n)", name: "\(words[n % 8]) \(words[(n / 8) % 8]) \(n)",
                                       description: "Batch \(batch), \(words[(n / 3) % 8]) finish", price: usd(1)),
                    id: ProductID(UUID()), currency: .usd)
            }
            _ = try await client.storage.durableWrite { handle in
                for product in products { _ = try CatalogStore.insert(handle, product) }
            }
        }
        client.searches.withLock { $0.invalidate() }
    }

    private func shape(_ client: CatalogClient) async throws -> SearchIndexShape? {
        try await client.read { try CatalogStore.searchIndexShape($0) }
    }

    private func results(_ client: CatalogClient, _ queries: [String]) async throws -> [[ProductID]] {
        var all: [[ProductID]] = []
        for text in queries {
            all.append(try await client.products(ProductQuery(text: text, limit: 100)).items.map(\.id))
        }
        return all
    }

    @Test("the shape's rule: merge when the segments beside the largest hold an eighth of its pages")
    func rule() {
        #expect(!SearchIndexShape(segmentPages: []).wantsMerge)
        #expect(!SearchIndexShape(segmentPages: [500]).wantsMerge)
        #expect(SearchIndexShape(segmentPages: [1, 1]).wantsMerge)
        #expect(SearchIndexShape(segmentPages: [800, 60, 40]).wantsMerge)
        #expect(!SearchIndexShape(segmentPages: [800, 60, 39]).wantsMerge)
        #expect(SearchIndexShape(segmentPages: [24_286, 24_291, 24_296, 1_551, 11, 36, 6_103, 6_106, 6_106, 35]).wantsMerge)
    }

    @Test("a batch-imported index ends in one segment, in bounded steps, with the same matches in the same order")
    func mergesIntoOneSegment() async throws {
        try await withCatalog { run in
            let client = run.client
            try await seedInBatches(client, batches: 23, perBatch: 40)
            let seeded = try #require(try await shape(client))
            #expect(seeded.segments > 2)
            let queries = ["oak", "brass lamp", "zin", "copper finish", "linen 4", "batch 7"]
            let before = try await results(client, queries)
            #expect(before.allSatisfy { !$0.isEmpty })

            let round = try #require(try await client.compactSearchIndex(stepPages: 2))
            #expect(round.segmentsBefore == seeded.segments && round.segmentsAfter == 1)
            #expect(round.steps > 1 && !round.interrupted)
            #expect(try await shape(client)?.segments == 1)
            #expect(try await client.compactSearchIndex() == nil)
            client.searches.withLock { $0.invalidate() }
            #expect(try await results(client, queries) == before)
        }
    }

    @Test("a round takes no step while a write is queued")
    func yieldsToWrites() async throws {
        try await withCatalog { run in
            let client = run.client
            try await seedInBatches(client, batches: 6, perBatch: 20)
            let segments = try #require(try await shape(client)).segments
            #expect(segments > 1)
            // A write that holds the writer until released (running, so out
            // of the queue), and one queued behind it.
            let entered = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
            let held = Task {
                try await client.storage.durableWrite { _ in
                    entered.signal()
                    release.wait()
                }
            }
            while entered.wait(timeout: .now()) == .timedOut { await Task.yield() }
            #expect(!client.storage.hasWritesWaiting)
            let queued = Task { try await client.create(ProductDraft(sku: "Q-1", name: "Queued", description: "Waits",
                                                                     price: usd(1))) }
            while !client.storage.hasWritesWaiting { await Task.yield() }
            let waited = try #require(try await client.compactSearchIndex())
            #expect(waited.steps == 0 && waited.interrupted && waited.segmentsAfter == segments)
            #expect(try await shape(client)?.segments == segments)
            release.signal()
            try await held.value
            _ = try await queued.value
            #expect(try await client.compactSearchIndex()?.segmentsAfter == 1)
        }
    }

    @Test("writes made while the index is being merged commit, and searches find them")
    func writesGoThroughDuringAMerge() async throws {
        try await withCatalog { run in
            let client = run.client
            try await seedInBatches(client, batches: 23, perBatch: 40)
            let merging = Task { try await client.compactSearchIndex(stepPages: 1) }
            var created: [ProductID] = []
            for index in 0..<12 {
                created.append(try await client.create(ProductDraft(sku: "NEW-\(index)", name: "Walnut stool \(index)",
                                                                    description: "Made during a merge",
                                                                    price: usd(2))).id)
            }
            _ = try await merging.value
            // Rounds until the rule is met again: each ends when a write
            // waits or one segment is left; none is waiting now.
            var rounds = 0
            while try await shape(client)?.wantsMerge == true, rounds < 10 {
                _ = try await client.compactSearchIndex(stepPages: 1)
                rounds += 1
            }
            #expect(try await shape(client)?.wantsMerge == false)
            let found = try await client.products(ProductQuery(text: "walnut", limit: 100)).items.map(\.id)
            #expect(Set(found) == Set(created))
            #expect(try await client.products(ProductQuery(text: "oak", limit: 100)).items.count == 100)
        }
    }

    @Test("one segment, or PostgreSQL (no segments): nothing to do", arguments: StorageBackend.all)
    func nothingToDo(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            _ = try await run.client.create(ProductDraft(sku: "P-1", name: "Oak", description: "Plain", price: usd(1)))
            #expect(try await shape(run.client)?.segments == (backend == .sqlite ? 1 : nil))
            #expect(try await run.client.compactSearchIndex() == nil)
        }
    }
}
