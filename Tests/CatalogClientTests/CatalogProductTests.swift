import Axiom
import Capabilities
@testable import CatalogClient
import Domain
import AxiomTestSupport
import Foundation
import Testing

@Suite("CatalogClient products", .serialized)
struct CatalogProductTests {
    @Test("create commits, applies to state and the snapshot, and publishes", arguments: StorageBackend.all)
    func create(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            let client = run.client
            let updates = client.stateUpdates
            let product = try await client.create(ProductDraft(
                sku: "MUG-01", name: "  Blue mug ", description: "Holds tea", price: usd(1299), stock: 5))
            #expect(product.name == "Blue mug" && product.sku == "MUG-01" && product.stock == 5 && product.active)
            #expect(product.price == usd(1299))
            #expect(try await client.lookup(product.id) == product)
            #expect(try await client.product(product.id) == product)
            #expect(client.state.product(sku: "MUG-01") == product)
            let unknown = ProductID(UUID())
            #expect(try await client.lookup([product.id, unknown]) == [product.id: product])
            #expect(client.state.count == 1)
            var iterator = updates.makeAsyncIterator()
            #expect(await iterator.next() == .created(product))
        }
    }

    @Test("validation lists every failing field and touches nothing", arguments: StorageBackend.all)
    func validation(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            let bad = ProductDraft(sku: "bad sku", name: "   ", description: String(repeating: "x", count: 2001),
                                   price: Money(amount: -1, currency: .eur), stock: -3)
            let error = await domainError { _ = try await run.client.create(bad) }
            #expect(error?.code == "validation_failed")
            #expect(error?.category == .invalid)
            #expect(Set(fields(error)) == ["sku", "name", "description", "price.amount", "stock", "price.currency"])
            #expect(run.client.state.count == 0)
            let euro = await domainError {
                _ = try await run.client.create(ProductDraft(sku: "EU-1", name: "Euro", price: Money(amount: 5, currency: .eur)))
            }
            #expect(fields(euro) == ["price.currency"])
        }
    }

    @Test("a second product with a taken SKU is 409 duplicate_sku, even when both race", arguments: StorageBackend.all)
    func duplicateSKU(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            let client = run.client
            let first = try await client.create(draft("SKU-1"))
            let error = await domainError { _ = try await client.create(draft("SKU-1", name: "Other")) }
            #expect(error?.code == "duplicate_sku")
            #expect(error?.category == .conflict)
            #expect(client.state.count == 1 && client.state.product(sku: "SKU-1") == first)

            let results = await withTaskGroup(of: Result<Product, any Error>.self) { group in
                for index in 0 ..< 8 {
                    group.addTask { await attempt { try await client.create(draft("RACE", name: "Racer \(index)")) } }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            let created = results.compactMap { try? $0.get() }
            #expect(created.count == 1)
            for case .failure(let failure) in results {
                #expect((failure as? any Refusal)?.code == "duplicate_sku")
            }
            #expect(client.state.count == 2)
        }
    }

    @Test("update changes price, name, description, stock and active; all or nothing", arguments: StorageBackend.all)
    func update(backend: StorageBackend) async throws {
        let directory = try await CatalogDatabase(backend)
        let id = try await withCatalog(directory) { run in
            let client = run.client
            let product = try await client.create(draft("UPD-1", price: 500, stock: 3))
            let updated = try await client.update(product.id, ProductPatch(
                name: " Renamed ", description: "New text", price: usd(750), stock: 40, active: false))
            #expect(updated.name == "Renamed" && updated.description == "New text" && updated.price == usd(750))
            #expect(updated.stock == 40 && !updated.active && updated.sku == "UPD-1" && updated.id == product.id)
            #expect(try await client.lookup(product.id) == updated)

            let error = await domainError {
                _ = try await client.update(product.id, ProductPatch(name: "", price: Money(amount: -5, currency: .eur),
                                                                     stock: 2_000_000))
            }
            #expect(error?.code == "validation_failed")
            #expect(Set(fields(error)) == ["name", "price.amount", "stock", "price.currency"])
            #expect(try await client.lookup(product.id) == updated)

            #expect(try await client.update(product.id, ProductPatch()) == updated)
            let missing = await domainError { _ = try await client.update(ProductID(UUID()), ProductPatch(stock: 1)) }
            #expect(missing?.code == "product_not_found")
            #expect(missing?.category == .notFound)
            return product.id
        }
        try await withCatalog(directory) { run in
            let product = try await run.client.product(id)
            #expect(product.name == "Renamed" && product.price == usd(750) && product.stock == 40 && !product.active)
        }
    }

    @Test("reads of an unknown product: nil from the snapshot, product_not_found from product(_:)", arguments: StorageBackend.all)
    func unknownProduct(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            let id = ProductID(UUID())
            let found = try await run.client.lookup(id)
            #expect(found == nil)
            let error = await domainError { _ = try await run.client.product(id) }
            #expect(error == EntityError.notFound(entity: "product", id: id.description))
        }
    }

    @Test("250 products page by case-folded name then id (keyset, as the in-memory list did); q finds by prefix; inactive only on request", arguments: StorageBackend.all)
    func pagination(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            let client = run.client
            func name(_ index: Int) -> String {
                let number = String(index + 1000).dropFirst()
                if index % 5 == 0 { return "Gadget \(number)" }
                return index % 2 == 0 ? "Widget \(number)" : "widget \(number)"
            }
            try await withThrowingTaskGroup(of: Product.self) { group in
                for index in 0 ..< 250 {
                    group.addTask { try await client.create(draft("P-\(index)", name: name(index))) }
                }
                try await group.waitForAll()
            }
            let all = client.state.products.values.sorted {
                ($0.name.lowercased(), $0.id.description) < ($1.name.lowercased(), $1.id.description)
            }
            #expect(all.count == 250)

            var pages: [ProductPage] = []
            var cursor: String?
            repeat {
                let page = try await client.products(ProductQuery(limit: 100, cursor: cursor))
                pages.append(page)
                cursor = page.nextCursor
            } while cursor != nil && pages.count < 10
            #expect(pages.map(\.items.count) == [100, 100, 50])
            #expect(pages.flatMap(\.items) == all)
            #expect(pages.last?.nextCursor == nil)

            // Search is ranked (here every match ranks alike, so by id), a
            // prefix of the last word matching case-insensitively.
            var gadgets: [Product] = []
            cursor = nil
            var rounds = 0
            repeat {
                let page = try await client.products(ProductQuery(text: "  gADg ", limit: 7, cursor: cursor))
                gadgets += page.items
                cursor = page.nextCursor
                rounds += 1
            } while cursor != nil && rounds < 20
            #expect(rounds == 8)
            #expect(gadgets.count == 50 && Set(gadgets) == Set(all.filter { $0.name.hasPrefix("Gadget") }))
            #expect(try await client.products(ProductQuery(text: "nothing like it")).items.isEmpty)

            let hidden = Array(all.prefix(3))
            for product in hidden { _ = try await client.update(product.id, ProductPatch(active: false)) }
            let publicList = try await client.products(ProductQuery(limit: 100)).items
            #expect(publicList.count == 100 && publicList.allSatisfy(\.active))
            #expect(Set(publicList.map(\.id)).isDisjoint(with: hidden.map(\.id)))
            var visible = 0
            cursor = nil
            repeat {
                let page = try await client.products(ProductQuery(limit: 100, cursor: cursor))
                visible += page.items.count
                cursor = page.nextCursor
            } while cursor != nil
            #expect(visible == 247)
            let adminPage = try await client.products(ProductQuery(limit: 3, includeInactive: true))
            #expect(adminPage.items.map(\.id) == hidden.map(\.id))
            #expect(adminPage.items.allSatisfy { !$0.active })
            // Only the deactivated ones, paged from their own index, and searched.
            let first = try await client.products(ProductQuery(limit: 2, shown: .inactive))
            let rest = try await client.products(ProductQuery(limit: 2, cursor: first.nextCursor, shown: .inactive))
            #expect((first.items + rest.items).map(\.id) == hidden.map(\.id) && rest.nextCursor == nil)
            let hiddenGadgets = hidden.filter { $0.name.hasPrefix("Gadget") }.map(\.id)
            let searched = try await client.products(ProductQuery(text: "gadget", limit: 100, shown: .inactive)).items
            #expect(Set(searched.map(\.id)) == Set(hiddenGadgets) && searched.allSatisfy { !$0.active })
            // An inactive product is still readable by id.
            #expect(try await client.product(hidden[0].id).active == false)
        }
    }

    @Test("a cursor stays valid while the catalogue changes: nothing skipped, nothing repeated", arguments: StorageBackend.all)
    func cursorStability(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            let client = run.client
            for letter in ["b", "d", "f", "h"] { _ = try await client.create(draft("S-\(letter.uppercased())", name: letter)) }
            let first = try await client.products(ProductQuery(limit: 2))
            #expect(first.items.map(\.name) == ["b", "d"])
            _ = try await client.create(draft("S-A", name: "a"))
            _ = try await client.create(draft("S-E", name: "e"))
            _ = try await client.update(first.items[1].id, ProductPatch(name: "z"))
            let second = try await client.products(ProductQuery(limit: 10, cursor: first.nextCursor))
            #expect(second.items.map(\.name) == ["e", "f", "h", "z"])
            #expect(second.nextCursor == nil)
        }
    }

    @Test("bad limit, q and cursor are reported together", arguments: StorageBackend.all)
    func badQueries(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            let client = run.client
            for limit in [0, 101, -1] {
                let error = await domainError { _ = try await client.products(ProductQuery(limit: limit)) }
                #expect(fields(error) == ["limit"])
            }
            let error = await domainError {
                _ = try await client.products(ProductQuery(text: String(repeating: "q", count: 201), limit: 0, cursor: "not a cursor!"))
            }
            #expect(fields(error) == ["limit", "q", "cursor"])
            let forged = Data("name\u{1F}not-an-id".utf8).base64EncodedString()
            #expect(fields(await domainError { _ = try await client.products(ProductQuery(cursor: forged)) }) == ["cursor"])
            let long = String(repeating: "A", count: 2000)
            #expect(fields(await domainError { _ = try await client.products(ProductQuery(cursor: long)) }) == ["cursor"])
            let unfiltered = try await client.products(ProductQuery(text: "", cursor: ""))
            #expect(unfiltered.items.isEmpty)
        }
    }

    @Test("an empty page encodes next_cursor as null; the problem codes are stable")
    func encoding() throws {
        let json = String(decoding: try JSONEncoder().encode(ProductPage(items: [], nextCursor: nil)), as: UTF8.self)
        #expect(json.contains("\"next_cursor\":null"))
        let decoded = try JSONDecoder().decode(ProductPage.self, from: Data(#"{"items":[],"next_cursor":"abc"}"#.utf8))
        #expect(decoded.nextCursor == "abc")
    }
}
