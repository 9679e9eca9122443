import Axiom
import Capabilities
import Domain
import Foundation

extension ClientRun {
    /// The `webhook.event` jobs the run's database holds, oldest first, as
    /// their work will read them: what the run's client enqueued.
    public func webhookEvents() async throws -> [WebhookEvent] {
        try await database.readTransaction { handle in
            try handle.query("SELECT payload FROM jobs WHERE kind = ? ORDER BY id", WebhookEvent.kind.name)
                .map { row -> WebhookEvent in
                    let text: String = try row.get("payload")
                    return try JSONDecoder().decode(WebhookEvent.self, from: Data(text.utf8))
                }
        }
    }
}
