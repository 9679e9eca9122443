import Axiom
import Domain
import MailClient
import WebhookClient

/// The admins' notice that the service disabled a webhook endpoint (it
/// answered 410 Gone, or every attempt failed for `webhooks_disable_after`):
/// the work of the `webhook.notice` jobs the webhooks client enqueues in
/// the disabling transaction. Sent to `mail_admin_to` (else `admin_email`),
/// when one is set, with the endpoint as it is when the mail goes; an
/// endpoint deleted meanwhile is told of no more.
public struct WebhookMails: JobWork {
    public static let kinds = [WebhookEndpointNotice.kind]

    private let webhooks: ClientHandle<WebhookClient>
    private let mail: ClientHandle<MailClient>

    public init(_ creation: ContextCreation) throws {
        webhooks = try creation.client(WebhookClient.self)
        mail = try creation.client(MailClient.self)
    }

    /// The endpoint as the mail's templates read it (`endpoint.…`).
    struct EndpointValues: Encodable {
        let id: String
        let url: String
        let description: String
        let reason: String
        let failing_since: String?
        let last_success_at: String?
    }

    public func run(_ job: Job) async throws {
        let notice = try JobPayload.decode(job) { try WebhookEndpointNotice(job: $0) }
        guard let admins = mail.call({ $0.site.adminAddress }) else { return }
        let endpoint: WebhookEndpoint
        do {
            endpoint = try await webhooks.call { try await $0.endpoint(notice.endpointID) }
        } catch WebhookError.endpointNotFound {
            return
        }
        let site = mail.call { $0.site }
        var values = try MailValues(site: site)
        try values.add("endpoint", EndpointValues(
            id: endpoint.id, url: endpoint.url, description: endpoint.description, reason: notice.reason.rawValue,
            failing_since: endpoint.failingSince?.rfc3339, last_success_at: endpoint.lastSuccessAt?.rfc3339))
        try values.add(notice.reason == .gone ? "gone" : "failing", true)
        _ = try await mail.call {
            try await $0.send(MailRequest(template: "admin/webhook_endpoint_disabled", to: admins, values: values.json,
                                          messageID: job.mailMessageID))
        }
    }
}
