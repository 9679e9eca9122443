import Domain
import Testing

@Suite struct CatalogStateTests {
    @Test func skusAreUniqueAndPricesInTheCatalogueCurrency() throws {
        var state = CatalogState(currency: .usd)
        try state.insert(makeProduct(1, sku: "A"))
        #expect(domainError { () throws in try state.insert(makeProduct(2, sku: "A")) } == EntityError.duplicate(field: "sku", value: "A"))
        #expect(domainError { () throws in try state.insert(makeProduct(1, sku: "B")) } == EntityError.duplicate(field: "id", value: ProductID(uuid(1)).description))
        let euro = Product(id: ProductID(uuid(3)), sku: "C", name: "Euro", price: Money(amount: 1, currency: .eur))
        #expect(validationError { () throws in try state.insert(euro) }?.codes(for: "price.currency") == [.inconsistent])
        let invalid = makeProduct(4, sku: "d", stock: -1)
        #expect(validationError { () throws in try state.insert(invalid) }?.fields == ["sku", "stock"])
        #expect(state.count == 1 && state.product(sku: "A")?.id == ProductID(uuid(1)))
    }

    @Test func updateKeepsTheIndexInStep() throws {
        var state = try CatalogState(currency: .usd, products: [makeProduct(1, sku: "A"), makeProduct(2, sku: "B")])
        let reserved = try state.product(ProductID(uuid(1)))!.reserving(4)
        try state.update(reserved)
        #expect(state.product(sku: "A")?.stock == 6)
        #expect(domainError { () throws in try state.update(makeProduct(3, sku: "Z")) }
            == EntityError.notFound(entity: "product", id: ProductID(uuid(3)).description))
        #expect(domainError { () throws in try state.update(makeProduct(1, sku: "B")) } == EntityError.duplicate(field: "sku", value: "B"))
        try state.update(makeProduct(1, sku: "A2"))
        #expect(state.product(sku: "A") == nil && state.product(sku: "A2")?.id == ProductID(uuid(1)))
        #expect(state.idsBySKU.count == 2)
        let copy = state
        #expect(copy == state)
    }
}
