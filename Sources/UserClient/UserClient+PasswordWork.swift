import Capabilities
import Domain

/// The users client's hashing and verification, with the hasher's full
/// queue (`SecurityError.busy`) turned into the domain's
/// `PasswordHashingBusy` (503 with `Retry-After`).
extension UserClient {
    func hashPassword(_ password: String) async throws -> String {
        do {
            return try await hasher.current.hash(password)
        } catch SecurityError.busy {
            throw PasswordHashingBusy()
        }
    }

    func verifyPassword(_ password: String, against hash: String) async throws -> Bool {
        do {
            return try await hasher.current.verify(password, against: hash)
        } catch {
            throw PasswordHashingBusy()
        }
    }
}
