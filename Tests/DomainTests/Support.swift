import Domain
import Foundation

/// Deterministic ids: `id(1)` is `00000000-0000-0000-0000-000000000001`.
func uuid(_ n: Int) -> UUID {
    UUID(uuidString: String(format: "00000000-0000-0000-0000-%012x", n))!
}

let usd = Currency.usd
func dollars(_ cents: Int64) -> Money { Money(amount: cents, currency: .usd) }
let t0 = Timestamp(millisecondsSince1970: 1_795_000_000_000)

/// The refusal `body` threw (nil when it did not throw, or threw
/// something else).
func domainError<T>(_ body: () throws -> T) -> (any Refusal)? {
    do {
        _ = try body()
        return nil
    } catch {
        return error as? any Refusal
    }
}

/// Whether `thrown` is `expected`.
func == <R: Refusal & Equatable>(thrown: (any Refusal)?, expected: R) -> Bool {
    guard let thrown = thrown as? R else { return false }
    return thrown == expected
}

/// The validation error `body` threw (nil for success or any other error).
func validationError<T>(_ body: () throws -> T) -> ValidationError? {
    domainError(body) as? ValidationError
}

func makeUser(_ n: Int, email: String = "user@example.com", name: String = "Ada Lovelace",
              role: UserRole = .customer, createdAt: Timestamp = t0) throws -> User {
    User(id: UserID(uuid(n)), name: name, email: try Email(email), role: role, createdAt: createdAt)
}

func makeProduct(_ n: Int, sku: String = "SKU-1", price: Int64 = 1999, stock: Int = 10,
                 active: Bool = true) -> Product {
    Product(id: ProductID(uuid(n)), sku: sku, name: "Widget", description: "A widget.",
            price: dollars(price), stock: stock, active: active)
}

func roundTrip<T: Codable>(_ value: T) throws -> (T, String) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let data = try encoder.encode(value)
    return (try JSONDecoder().decode(T.self, from: data), String(decoding: data, as: UTF8.self))
}
