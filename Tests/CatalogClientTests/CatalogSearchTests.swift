import Axiom
import AxiomTestSupport
import Capabilities
@testable import CatalogClient
import Domain
import Foundation
import Testing

@Suite("CatalogClient search: FTS5 or tsvector, ranked, escaped, paged", .serialized)
struct CatalogSearchTests {
    private func search(_ client: CatalogClient, _ text: String, limit: Int = 100,
                        includeInactive: Bool = false) async throws -> [String] {
        try await client.products(ProductQuery(text: text, limit: limit, includeInactive: includeInactive))
            .items.map(\.name)
    }

    @Test("a name match ranks above a SKU match above a description match", arguments: StorageBackend.all)
    func ranking(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            let client = run.client
            _ = try await client.create(ProductDraft(sku: "D-1", name: "Oak desk", description: "With a brass handle",
                                                     price: usd(1)))
            _ = try await client.create(ProductDraft(sku: "BRASS-9", name: "Hook", description: "For coats", price: usd(1)))
            _ = try await client.create(ProductDraft(sku: "L-1", name: "Brass lamp", description: "Bright", price: usd(1)))
            _ = try await client.create(ProductDraft(sku: "X-1", name: "Chair", description: "Wooden", price: usd(1)))
            #expect(try await search(client, "brass") == ["Brass lamp", "Hook", "Oak desk"])
            #expect(try await search(client, "BRÄSS") == ["Brass lamp", "Hook", "Oak desk"])
        }
    }

    /// SQLite's BM25 weighs a word by how few products have it, from
    /// document counts the client keeps between queries. "lamp" is in 12
    /// of 14 products (more than half: next to no weight), "zinc" in 2, so
    /// the product with "zinc" in its name comes first whichever word is in
    /// whose name. A word the tokenizer drops (`-`) is no FTS5 phrase and
    /// must not shift the counts onto the wrong words. (PostgreSQL's
    /// ts_rank has no document frequency, so this is SQLite's alone.)
    @Test("rarer words weigh more, from kept document counts; a dropped word does not shift them")
    func documentFrequency() async throws {
        try await withCatalog(backend: .sqlite) { run in
            let client = run.client
            _ = try await client.create(ProductDraft(sku: "Z-1", name: "Zinc tray", description: "Under a lamp", price: usd(1)))
            _ = try await client.create(ProductDraft(sku: "Z-2", name: "Lamp base", description: "Zinc coated", price: usd(1)))
            for index in 0..<10 {
                _ = try await client.create(ProductDraft(sku: "L-\(index)", name: "Shade \(index)",
                                                         description: "For a lamp", price: usd(1)))
            }
            _ = try await client.create(ProductDraft(sku: "O-1", name: "Oak", description: "Plain", price: usd(1)))
            _ = try await client.create(ProductDraft(sku: "O-2", name: "Elm", description: "Plain", price: usd(1)))
            for text in ["zinc lamp", "lamp zinc", "- zinc lamp", "zinc - lamp", "lamp - zinc -"] {
                #expect(try await search(client, text) == ["Zinc tray", "Lamp base"], "\(text)")
            }
            #expect(client.searches.withLock { $0.documentCounts(of: [#""zinc""#, #""lamp"*"#]) }
                        == [#""zinc""#: 2, #""lamp"*"#: 12])
            _ = try await client.create(ProductDraft(sku: "Z-3", name: "Zinc", description: "Sheet", price: usd(1)))
            #expect(client.searches.withLock { $0.documentCountsKept } == 0)
            // Two name matches tie (no length normalization): older first.
            #expect(try await search(client, "zin") == ["Zinc tray", "Zinc", "Lamp base"])
            // Unless one is named exactly as the query: that one first.
            #expect(try await search(client, "zinc") == ["Zinc", "Zinc tray", "Lamp base"])
        }
    }

    /// A one-word query's order is the column weights' alone (the word's
    /// rarity would scale every match alike), so SQLite's ranking counts no
    /// documents for it: a word in more than maxRanked products leaves no
    /// count behind, and one in fewer keeps the count its walk saw (every
    /// match), which a later two-word query then uses.
    @Test("a one-word query counts no documents; a walk over every match keeps the count it saw")
    func oneWordCountsNothing() async throws {
        let directory = try await CatalogDatabase(.sqlite)
        _ = try await seedProducts(directory, count: CatalogStore.maxRanked + 10)
        try await withCatalog(directory) { run in
            let client = run.client
            _ = try await client.create(ProductDraft(sku: "OW-1", name: "Ink", description: "For a seeded quill", price: usd(1)))
            _ = try await client.create(ProductDraft(sku: "OW-2", name: "Quill stand", description: "Holds a quill",
                                                     price: usd(1)))
            _ = try await client.create(ProductDraft(sku: "QUILL-3", name: "Nib", description: "Steel", price: usd(1)))
            #expect(try await search(client, "seeded", limit: 3) == ["Seeded 00011", "Seeded 00012", "Seeded 00013"])
            #expect(client.searches.withLock { $0.documentCountsKept } == 0)
            #expect(try await search(client, "quill") == ["Quill stand", "Nib", "Ink"])
            #expect(client.searches.withLock { $0.documentCounts(of: [#""quill"*"#]) } == [#""quill"*"#: 3])
            #expect(try await search(client, "seeded quill") == ["Ink"])
        }
    }

    @Test("query syntax in the user's text is plain text: quotes, *, NEAR, -, :, parentheses, AND/OR", arguments: StorageBackend.all)
    func escaping(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            let client = run.client
            for (index, name) in [#"Say "hi" now"#, "Star * gazer", "NEAR field", "Dash-board", "Ratio 16:9",
                                  "Mug (blue)", "Plain"].enumerated() {
                _ = try await client.create(ProductDraft(sku: "E-\(index)", name: name, description: "thing", price: usd(1)))
            }
            #expect(try await search(client, #""hi""#) == [#"Say "hi" now"#])
            #expect(try await search(client, #"say "hi"#) == [#"Say "hi" now"#])
            #expect(try await search(client, "NEAR") == ["NEAR field"])
            #expect(try await search(client, "NEAR(field plain)").isEmpty)
            #expect(try await search(client, "dash-board") == ["Dash-board"])
            #expect(try await search(client, "-board") == ["Dash-board"])
            #expect(try await search(client, "-mug") == ["Mug (blue)"])
            #expect(try await search(client, "16:9") == ["Ratio 16:9"])
            #expect(try await search(client, "name:mug").isEmpty)
            #expect(try await search(client, "(blue)") == ["Mug (blue)"])
            #expect(try await search(client, "mug OR plain").isEmpty)
            #expect(try await search(client, "plain AND").isEmpty)
            #expect(try await search(client, "star ^gazer") == ["Star * gazer"])
            for punctuation in [#"""#, "*", "-", "(", ")", ":", #"""""#, "^", "{}"] {
                #expect(try await search(client, punctuation).isEmpty, "\(punctuation)")
            }
        }
    }

    @Test("the last word matches as a prefix (search-as-you-type), the others as whole words", arguments: StorageBackend.all)
    func prefix(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            let client = run.client
            _ = try await client.create(ProductDraft(sku: "W-1", name: "Blue widget", description: "x", price: usd(1)))
            _ = try await client.create(ProductDraft(sku: "W-2", name: "Widow lamp", description: "x", price: usd(1)))
            #expect(Set(try await search(client, "w")) == ["Blue widget", "Widow lamp"])
            #expect(try await search(client, "wid").count == 2)
            #expect(try await search(client, "widg") == ["Blue widget"])
            #expect(try await search(client, "blue wid") == ["Blue widget"])
            #expect(try await search(client, "wid blue").isEmpty)
            #expect(try await search(client, "bl") == ["Blue widget"])
        }
    }

    @Test("paging a ranked search: every match once, in the one-page order, across rank ties", arguments: StorageBackend.all)
    func paging(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            let client = run.client
            for index in 0 ..< 60 {
                let description = index % 3 == 0 ? "lamp lamp lamp" : (index % 3 == 1 ? "a lamp" : "nothing")
                _ = try await client.create(ProductDraft(sku: "LP-\(index)", name: "Lamp \(index)",
                                                         description: description, price: usd(1)))
            }
            _ = try await client.create(ProductDraft(sku: "OTHER", name: "Chair", description: "no", price: usd(1)))
            let whole = try await client.products(ProductQuery(text: "lamp", limit: 100))
            #expect(whole.items.count == 60 && whole.nextCursor == nil)
            var paged: [Product] = []
            var cursor: String?
            var rounds = 0
            repeat {
                let page = try await client.products(ProductQuery(text: "lamp", limit: 7, cursor: cursor))
                paged += page.items
                cursor = page.nextCursor
                rounds += 1
            } while cursor != nil && rounds < 20
            #expect(rounds == 9)
            #expect(paged.map(\.id) == whole.items.map(\.id))
            #expect(Set(paged.map(\.id)).count == 60)
        }
    }

    @Test("the index follows every write in its transaction: rename, deactivation (hidden unless admin)", arguments: StorageBackend.all)
    func inStep(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            let client = run.client
            let lamp = try await client.create(ProductDraft(sku: "IS-1", name: "Copper kettle", description: "x",
                                                            price: usd(1), stock: 5))
            #expect(try await search(client, "kettle") == ["Copper kettle"])
            _ = try await client.update(lamp.id, ProductPatch(name: "Copper teapot"))
            #expect(try await search(client, "kettle").isEmpty)
            #expect(try await search(client, "teapot") == ["Copper teapot"])
            _ = try await client.reserve(CheckoutID(UUID()), [StockLine(productID: lamp.id, quantity: 1)])
            #expect(try await search(client, "teapot") == ["Copper teapot"])
            _ = try await client.update(lamp.id, ProductPatch(active: false))
            #expect(try await search(client, "teapot").isEmpty)
            #expect(try await search(client, "teapot", includeInactive: true) == ["Copper teapot"])
        }
    }

    @Test("a query is bounded (200 bytes, 8 words); a cursor of the other kind of list is refused", arguments: StorageBackend.all)
    func bounds(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            let client = run.client
            for index in 0 ..< 3 {
                _ = try await client.create(ProductDraft(sku: "B-\(index)", name: "Bowl \(index)", description: "x",
                                                         price: usd(1)))
            }
            let nine = Array(repeating: "bowl", count: 9).joined(separator: " ")
            #expect(fields(await domainError { _ = try await client.products(ProductQuery(text: nine)) }) == ["q"])
            let eight = Array(repeating: "bowl", count: 8).joined(separator: " ")
            #expect(try await client.products(ProductQuery(text: eight)).items.count == 3)
            let long = String(repeating: "é", count: 101)
            #expect(fields(await domainError { _ = try await client.products(ProductQuery(text: long)) }) == ["q"])
            let listCursor = try await client.products(ProductQuery(limit: 1)).nextCursor
            let searchCursor = try await client.products(ProductQuery(text: "bowl", limit: 1)).nextCursor
            #expect(listCursor != nil && searchCursor != nil)
            #expect(fields(await domainError {
                _ = try await client.products(ProductQuery(text: "bowl", cursor: listCursor))
            }) == ["cursor"])
            #expect(fields(await domainError { _ = try await client.products(ProductQuery(cursor: searchCursor)) })
                == ["cursor"])
        }
    }

    @Test("every match up to maxRanked is ranked, not the first 500: the best of 600 come first though newest", arguments: StorageBackend.all)
    func rankingCoversEveryMatch(backend: StorageBackend) async throws {
        let directory = try await CatalogDatabase(backend)
        let ids = try await seedProducts(directory, count: 1300)
        // The 600 newest rows say "lamp" (fewer than half the rows, so bm25
        // gives the word weight), the 5 newest three times: bm25 puts those
        // first. The first version ranked only the 500 oldest matches and
        // never returned them.
        #expect(CatalogStore.maxRanked >= 600)
        // Row numbers: SQLite's rowid, PostgreSQL's identity column of the
        // same name, both in insertion order.
        let storage = try await directory.open()
        _ = try await storage.writeTransaction { handle in
            try handle.execute("UPDATE products SET description = 'Lamp shade' WHERE rowid > 700")
            try handle.execute("UPDATE products SET description = 'Lamp lamp lamp shade' WHERE rowid > 1295")
        }
        await storage.close()
        try await withCatalog(directory) { run in
            var seen: [ProductID] = []
            var cursor: String?
            var rounds = 0
            repeat {
                let page = try await run.client.products(ProductQuery(text: "lamp", limit: 100, cursor: cursor))
                seen += page.items.map(\.id)
                cursor = page.nextCursor
                rounds += 1
            } while cursor != nil && rounds < 30
            #expect(rounds == 6)
            #expect(seen.count == 600 && Set(seen) == Set(ids.suffix(600)))
            #expect(Set(seen.prefix(5)) == Set(ids.suffix(5)))
        }
    }

    @Test("a query matching more than maxRanked products pages through the newest maxRanked, each once", arguments: StorageBackend.all)
    func rankingIsBounded(backend: StorageBackend) async throws {
        let directory = try await CatalogDatabase(backend)
        let ids = try await seedProducts(directory, count: CatalogStore.maxRanked + 100)
        try await withCatalog(directory) { run in
            var seen: [ProductID] = []
            var cursor: String?
            var rounds = 0
            repeat {
                let page = try await run.client.products(ProductQuery(text: "seeded", limit: 100, cursor: cursor))
                seen += page.items.map(\.id)
                cursor = page.nextCursor
                rounds += 1
            } while cursor != nil && rounds < 30
            #expect(seen.count == CatalogStore.maxRanked && Set(seen).count == seen.count)
            #expect(Set(seen) == Set(ids.suffix(CatalogStore.maxRanked)))
            // A narrower query reaches beyond them.
            let number = String(100_000).dropFirst()
            #expect(try await run.client.products(ProductQuery(text: "seeded \(number)")).items.map(\.id) == [ids[0]])
        }
    }

    @Test("a kept ranking follows the indexed text: a new product and a rename show at once; stock does not re-rank", arguments: StorageBackend.all)
    func keptRankingFollowsWrites(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            let client = run.client
            #expect(try await search(client, "lantern").isEmpty)
            let lantern = try await client.create(ProductDraft(sku: "KR-1", name: "Tin lantern", description: "x",
                                                               price: usd(1), stock: 5))
            #expect(try await search(client, "lantern") == ["Tin lantern"])
            #expect(try await search(client, "lant") == ["Tin lantern"])
            let kept = client.searches.withLock { $0.generation }
            _ = try await client.update(lantern.id, ProductPatch(stock: 9))
            #expect(client.searches.withLock { $0.generation } == kept)
            #expect(try await client.products(ProductQuery(text: "lantern")).items.map(\.stock) == [9])
            _ = try await client.update(lantern.id, ProductPatch(description: "A lamp for the garden"))
            #expect(client.searches.withLock { $0.generation } == kept + 1)
            #expect(try await search(client, "garden") == ["Tin lantern"])
            _ = try await client.update(lantern.id, ProductPatch(name: "Tin candle holder"))
            #expect(try await search(client, "lantern").isEmpty)
            #expect(try await search(client, "lant").isEmpty)
        }
    }

    @Test("the MATCH expression quotes every word, doubles quotes, stars only the last, ORs a word's plural forms")
    func expression() {
        #expect(SearchExpression(terms: ["blue", "wid"]).match == #"("blue" OR "blues") AND "wid"*"#)
        #expect(SearchExpression(terms: [#"s"ay"#, #""hi""#]).match == #""s""ay" """hi"""*"#)
        #expect(SearchExpression(terms: ["NEAR(a", "b)"]).match == #""NEAR(a" "b)"*"#)
        // The last word's stem is the prefix; a …y stem adds its …ies plural.
        #expect(SearchExpression(terms: ["Mugs"]).match == #""mug"*"#)
        #expect(SearchExpression(terms: ["Mug"]).match == #""Mug"*"#)
        #expect(SearchExpression(terms: ["candy"]).match == #"("candy"* OR "candies")"#)
        #expect(SearchExpression(terms: ["candies"]).match == #"("candy"* OR "candies"*)"#)
        #expect(SearchExpression(terms: ["boxes", "x"]).match == #"("boxes" OR "box") AND "x"*"#)
        #expect(SearchExpression(terms: ["glass", "x"]).phrases == [#""glass""#, #""glasses""#, #""x"*"#])
        #expect(SearchExpression(terms: ["a", "-", "b"]).groups == [[#""a""#], [#""b"*"#]])
        #expect(SearchExpression(terms: ["-", "()"]).groups.isEmpty)
        #expect(SearchExpression(terms: ["Brass", "-", "Lamp"]).exactName == "brass - lamp")
    }

    @Test("an exact name ranks first; a word finds its singular and plural, whole or as a prefix", arguments: StorageBackend.all)
    func exactNamesAndPlurals(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            let client = run.client
            for (index, name) in ["Mug 2", "Mug 3", "Blue mugs", "Mug", "Candies jar", "Glass box", "Boxes of tea",
                                  "Candy floss"].enumerated() {
                _ = try await client.create(ProductDraft(sku: "P-\(index)", name: name, description: "", price: usd(1)))
            }
            let mugs: Set = ["Mug", "Mug 2", "Mug 3", "Blue mugs"]
            for text in ["mug", "MUG", "Mug"] {
                let found = try await search(client, text)
                #expect(found.first == "Mug" && Set(found) == mugs, "\(text)")
            }
            #expect(Set(try await search(client, "mugs")) == mugs)
            #expect(try await search(client, "blue mug") == ["Blue mugs"])
            #expect(try await search(client, "blue mugs") == ["Blue mugs"])
            #expect(try await search(client, "mug 2").first == "Mug 2")
            #expect(try await search(client, "candie") == ["Candies jar"])  // typing "candies"
            for text in ["candy", "candies", "cand", "CANDIES"] {
                #expect(Set(try await search(client, text)) == ["Candies jar", "Candy floss"], "\(text)")
            }
            #expect(try await search(client, "candy jar") == ["Candies jar"])
            #expect(try await search(client, "candy floss") == ["Candy floss"])
            #expect(Set(try await search(client, "box")) == ["Glass box", "Boxes of tea"])
            #expect(Set(try await search(client, "boxes")) == ["Glass box", "Boxes of tea"])
            #expect(try await search(client, "box tea") == ["Boxes of tea"])
            #expect(try await search(client, "glasses") == ["Glass box"])
            #expect(try await search(client, "glass boxes") == ["Glass box"])
            // An exact name is first on every page: page by page, the same order.
            let first = try await client.products(ProductQuery(text: "mug", limit: 1))
            let rest = try await client.products(ProductQuery(text: "mug", limit: 10, cursor: first.nextCursor))
            #expect(first.items.map(\.name) == ["Mug"] && Set(rest.items.map(\.name)) == mugs.subtracting(["Mug"]))
            // Renamed away, it is no longer first (the kept ranking is dropped).
            let mug = try #require(first.items.first)
            _ = try await client.update(mug.id, ProductPatch(name: "Mug 9"))
            #expect(try await search(client, "mug").first == "Mug 2")
        }
    }

    @Test("one stem for a word and its regular plural; no stem taken from -ss, -us, -is or short words")
    func stems() {
        for (word, stem) in [("mugs", "mug"), ("mug", "mug"), ("candies", "candy"), ("flies", "fly"), ("boxes", "box"),
                             ("glasses", "glass"), ("brushes", "brush"), ("kettles", "kettle"), ("pies", "pie"),
                             ("toys", "toy"), ("glass", "glass"), ("bus", "bus"), ("iris", "iris"), ("as", "as")] {
            #expect(SearchStem.stem(word) == stem, "\(word)")
        }
        for stem in ["mug", "candy", "box", "glass", "brush", "kettle", "toy"] {
            #expect(SearchStem.stem(SearchStem.plural(stem)) == stem, "\(stem)")
        }
    }

    @Test("the tsquery quotes every word, doubles ' and escapes \\, and prefixes only the last")
    func tsquery() {
        #expect(SearchExpression(terms: ["blue", "wid"]).tsquery == "('blue' | 'blues') & 'wid':*")
        #expect(SearchExpression(terms: ["candy"]).tsquery == "('candy':* | 'candies')")
        #expect(SearchExpression(terms: ["o'neil", #"a\b"#]).tsquery == #"'o''neil' & 'a\\b':*"#)
        #expect(SearchExpression(terms: ["!a", "b|c", "d:*A"]).tsquery == "'!a' & 'b|c' & 'd:*A':*")
        #expect(SearchExpression(terms: []).tsquery.isEmpty)
    }

    @Test("tsquery syntax in the user's text is plain text too: & | ! <-> :* weights, quotes and backslashes",
          arguments: StorageBackend.all)
    func tsquerySyntaxIsText(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            let client = run.client
            for (index, name) in ["Salt & pepper", "Black|white", "Not !this", "O'Neil chair", #"Back\slash"#,
                                  "Arrow <-> sign", "Plain"].enumerated() {
                _ = try await client.create(ProductDraft(sku: "T-\(index)", name: name, description: "thing", price: usd(1)))
            }
            #expect(try await search(client, "salt & pepper") == ["Salt & pepper"])
            #expect(try await search(client, "salt | plain").isEmpty)
            #expect(try await search(client, "!salt").count == 1)
            #expect(try await search(client, "o'neil") == ["O'Neil chair"])
            #expect(try await search(client, "o'") == ["O'Neil chair"])
            #expect(try await search(client, #"back\"#) == [#"Back\slash"#])
            #expect(try await search(client, "arrow <-> sign") == ["Arrow <-> sign"])
            #expect(try await search(client, "plain:*") == ["Plain"])
            // A weight or prefix mark inside a word is text: "plain a…" as
            // a phrase, which no product holds.
            #expect(try await search(client, "plain:A").isEmpty)
            #expect(try await search(client, "thing:*B").isEmpty)
            for punctuation in ["'", "''", #"\"#, "&", "|", "!", "<->", ":*", "'&'"] {
                #expect(try await search(client, punctuation).isEmpty, "\(punctuation)")
            }
        }
    }
}
