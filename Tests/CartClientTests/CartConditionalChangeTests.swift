import Domain
import Foundation
import Testing

/// The cart's half of If-Match: a change made `unchangedFrom` a cart commits
/// only while the user's cart is still that cart (checked in the user's turn).
@Suite(.serialized) struct CartConditionalChangeTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cart-conditional-\(UUID().uuidString)")
    var path: String { directory.appendingPathComponent("cart.db").path }
    let user = UserID(UUID())
    let mug = ProductID(UUID())

    @Test func ofConcurrentChangesFromOneCartExactlyOneCommits() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try await CartRun.start(path)
        let seen = try await run.client.cart(for: user)
        let outcomes = await withTaskGroup(of: Result<Cart, any Error>.self) { group in
            for quantity in 1...8 {
                group.addTask { [user, mug] in
                    do { return .success(try await run.client.setQuantity(user, mug, quantity, unchangedFrom: seen)) }
                    catch { return .failure(error) }
                }
            }
            var all: [Result<Cart, any Error>] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        let winners = outcomes.compactMap { try? $0.get() }
        #expect(winners.count == 1)
        for case .failure(let error) in outcomes {
            #expect(error as? EntityError == EntityError.preconditionFailed(entity: "cart"))
        }
        #expect(try await run.client.cart(for: user) == winners.first)
        // A removal from the cart as it was before is refused, and leaves the line.
        await #expect(throws: EntityError.preconditionFailed(entity: "cart")) {
            _ = try await run.client.remove(user, mug, unchangedFrom: seen)
        }
        #expect(try await run.client.cart(for: user).lines.count == 1)
        await run.stop()
    }
}
