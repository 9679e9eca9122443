/// What one replay call queued (`POST /admin/webhooks/{id}/replay`): the
/// deliveries made or reset to pending, and whether more events remain
/// after the batch (`nextCursor` continues from there).
public struct WebhookReplay: Hashable, Sendable {
    public let enqueued: Int
    public let more: Bool
    public let nextCursor: String?

    public init(enqueued: Int, nextCursor: String?) {
        self.enqueued = enqueued
        more = nextCursor != nil
        self.nextCursor = nextCursor
    }
}
