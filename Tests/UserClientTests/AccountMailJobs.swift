import Axiom
import AxiomTestSupport
import Capabilities
import Domain
import UserClient

/// The `account.mail` jobs a run's database holds, oldest first, with
/// their decoded payloads: what the job runner would send.
extension ClientRun where C == UserClient {
    func accountMails() async throws -> [AccountMail] {
        try await database.readTransaction { handle in
            try handle.query("SELECT payload FROM jobs WHERE kind = ? ORDER BY id", AccountMail.kind.name)
                .map { row -> AccountMail in
                    let text: String = try row.get("payload")
                    return try AccountMail(payload: Array(text.utf8))
                }
        }
    }

    /// The newest mail of `template`, which must exist.
    func lastMail(_ template: AccountMail.Template) async throws -> AccountMail {
        guard let mail = try await accountMails().last(where: { $0.mail == template }) else {
            throw MissingMail(template: template)
        }
        return mail
    }
}

struct MissingMail: Error {
    let template: AccountMail.Template
}
