import Capabilities
import Domain
import FoundationEssentials

/// The endpoints admins manage: made with a secret shown once, listed,
/// read, changed, rotated and deleted. A URL is checked when it is given
/// (it parses, its scheme is allowed, and its host resolves to addresses
/// the capability's policy admits: no loopback, private, link-local,
/// unique-local or metadata address unless `webhooks_allow_private`) and
/// again at every connect, against a name that resolves elsewhere since.
extension WebhookClient {
    /// `webhook_endpoint_not_found`.
    public nonisolated func endpoint(_ id: String) async throws -> WebhookEndpoint {
        guard let found = try await storage.storedRead({ try WebhookEndpointStore.find($0, id: id) }) else {
            throw WebhookError.endpointNotFound(id: id)
        }
        return found
    }

    /// Newest first, `limit` after `cursor` (the previous page's last id).
    public nonisolated func endpoints(limit: Int, after cursor: String?) async throws -> Page<WebhookEndpoint> {
        if let cursor, !Self.isEndpointID(cursor) {
            throw ValidationError([FieldError(field: "cursor", code: .invalidFormat,
                                              message: "cursor is not one this service issued")])
        }
        let count = max(0, limit)
        let read = try await storage.storedRead { try WebhookEndpointStore.list($0, after: cursor, limit: count + 1) }
        return Page(readAhead: read, limit: count) { $0.id }
    }

    /// A new enabled endpoint and its secret (`whsec_…`, shown this once).
    public func create(_ draft: WebhookEndpointDraft) async throws -> WebhookEndpointCreated {
        let fields = try draft.checked(urlProblem: urlProblem)
        try await checkAddress(fields.url)
        let now = self.now
        let id = "ep_" + TimeOrderedUUID.make(millisecondsSince1970: now).uuidString.lowercased().filter { $0 != "-" }
        let secret = WebhookSigner.newSecret(random.current)
        let endpoint = try await storage.durableWrite { handle in
            try WebhookEndpointStore.insert(handle, id: id, fields: fields, secret: secret, now: now)
            guard let made = try WebhookEndpointStore.find(handle, id: id) else { throw WebhookError.endpointNotFound(id: id) }
            return made
        }
        return WebhookEndpointCreated(endpoint: endpoint, secret: secret)
    }

    /// `patch` applied; a new URL is checked as at creation, and so is the
    /// URL of an endpoint enabled again.
    public func update(_ id: String, _ patch: WebhookEndpointPatch) async throws -> WebhookEndpoint {
        let current = try await endpoint(id)
        let fields = try patch.applied(to: current, urlProblem: urlProblem)
        if fields.url != current.url || (fields.status == .enabled && !current.isEnabled) {
            try await checkAddress(fields.url)
        }
        let now = self.now
        return try await storage.durableWrite { handle in
            guard let locked = try WebhookEndpointStore.find(handle, id: id, locking: true) else {
                throw WebhookError.endpointNotFound(id: id)
            }
            try WebhookEndpointStore.update(handle, locked, to: fields, now: now)
            return try WebhookEndpointStore.find(handle, id: id) ?? locked
        }
    }

    /// Deleted; its pending deliveries are `cancelled` in the same write.
    public func delete(_ id: String) async throws {
        let now = self.now
        try await storage.durableWrite { handle in
            guard try WebhookEndpointStore.delete(handle, id: id) else { throw WebhookError.endpointNotFound(id: id) }
            try WebhookDeliveryStore.cancelPending(handle, endpoint: id, now: now)
        }
    }

    /// The most a rotation's overlap may last: a week.
    public static let maxOverlapSeconds: Int64 = 604_800

    /// A new secret, shown this once; the one it replaces keeps signing
    /// beside it for `overlapSeconds` (0: not at all), so receivers can
    /// move to the new one without missing a delivery.
    public func rotateSecret(_ id: String, overlapSeconds: Int64 = 86_400) async throws -> WebhookSecret {
        guard (0...Self.maxOverlapSeconds).contains(overlapSeconds) else {
            throw ValidationError([FieldError(field: "overlap_seconds", code: .outOfRange,
                                              message: "overlap_seconds must be from 0 to \(Self.maxOverlapSeconds)")])
        }
        let now = self.now
        let secret = WebhookSigner.newSecret(random.current)
        let until = overlapSeconds > 0 ? now + overlapSeconds * 1000 : nil
        try await storage.durableWrite { handle in
            guard try WebhookEndpointStore.find(handle, id: id, locking: true) != nil else {
                throw WebhookError.endpointNotFound(id: id)
            }
            try WebhookEndpointStore.rotate(handle, id: id, secret: secret, previousUntil: until, now: now)
        }
        return WebhookSecret(secret: secret, previousExpiresAt: until.map(Timestamp.init(millisecondsSince1970:)))
    }

    /// What is wrong with `url` as a place to send to, nil when nothing:
    /// it must parse as the HTTP client reads URLs, with `https` (or
    /// `http` while `webhooks_allow_http` is on).
    nonisolated func urlProblem(_ url: String) -> String? {
        do {
            let parsed = try OutboundURL(parsing: url)
            if parsed.scheme == .http && !settings.allowsHTTP {
                return "url must be https:// (http:// only while webhooks_allow_http is on)"
            }
            return nil
        } catch {
            return "url is not an absolute https:// URL: \(error.reason)"
        }
    }

    /// The host of `url` resolves, to addresses the policy admits.
    nonisolated func checkAddress(_ url: String) async throws {
        guard let parsed = try? OutboundURL(parsing: url) else { return }
        do {
            try await http.current.check(parsed)
        } catch {
            switch error {
            case .addressRefused(let host, let addresses): throw WebhookError.urlRefused(host: host, addresses: addresses)
            default: throw WebhookError.urlUnresolvable(host: parsed.host)
            }
        }
    }

    static func isEndpointID(_ text: String) -> Bool {
        text.hasPrefix("ep_") && text.utf8.count == 35
    }
}
