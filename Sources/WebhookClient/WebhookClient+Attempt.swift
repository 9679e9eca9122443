import Capabilities
import Domain

extension WebhookClient {
    /// One attempt of delivery `id`, the work of its job. Answers when the
    /// next attempt is due (`WebhookRetry`, which the job throws to wait),
    /// nil when the delivery is done: it succeeded, failed for good, was
    /// cancelled, or is gone (pruned). A delivery whose endpoint was
    /// deleted is `cancelled`, one whose endpoint is disabled or whose
    /// event was pruned `failed`, without an attempt. While its endpoint
    /// has `webhooks_endpoint_concurrency` attempts in flight here the
    /// attempt is put off.
    ///
    /// The attempt is recorded, with the delivery's next state and the
    /// endpoint's (its failing streak, its disabling), in one write after
    /// the answer: a process killed before that write leaves the job to
    /// its lease, and the delivery is attempted again with the same
    /// `webhook-id`.
    public func attempt(_ id: Int64) async throws -> WebhookRetry? {
        let started = self.now
        guard let target = try await storage.storedRead({ try WebhookAttemptTarget.read($0, delivery: id, now: started) }),
              target.delivery.status == .pending else { return nil }
        guard let endpoint = target.endpoint, endpoint.isEnabled, let event = target.event else {
            let (status, reason) = Self.ending(target)
            try await storage.durableWrite {
                try WebhookDeliveryStore.end($0, id: id, status: status, reason: reason, now: started)
            }
            return nil
        }
        if let pause = load.enter(endpoint.id, delivery: id, now: started, unit: Double.random(in: 0..<1)) {
            counters.record(.deferred)
            return WebhookRetry(delayMilliseconds: pause,
                                reason: "endpoint \(endpoint.id) has \(settings.endpointConcurrency) attempts in flight here")
        }
        let sent = await send(event, to: endpoint, secrets: target.secrets)
        load.leave(endpoint.id, latencyMilliseconds: sent.attempt.latencyMilliseconds)
        return try await record(sent, of: target.delivery, to: endpoint)
    }

    /// What one attempt got: the log's row and what it means.
    struct SentAttempt {
        let attempt: WebhookAttempt
        let verdict: WebhookVerdict
    }

    private func send(_ event: WebhookEventRecord, to endpoint: WebhookEndpoint, secrets: [String]) async -> SentAttempt {
        let at = self.now
        let url: OutboundURL
        do {
            url = try OutboundURL(parsing: endpoint.url)
        } catch {
            return SentAttempt(attempt: WebhookAttempt(at: Timestamp(millisecondsSince1970: at), statusCode: nil,
                                                       latencyMilliseconds: 0, error: "its url does not parse: \(error.reason)"),
                               verdict: .failed(retryAfter: nil))
        }
        let timestamp = at / 1000
        let signer = WebhookSigner(authenticator: authenticator.current)
        let request = OutboundHTTPRequest(url: url, method: "POST", headers: [
            (name: "content-type", value: "application/json"),
            (name: "webhook-id", value: event.id),
            (name: "webhook-timestamp", value: String(timestamp)),
            (name: "webhook-signature", value: signer.header(id: event.id, timestamp: timestamp, body: event.body,
                                                             secrets: secrets)),
            (name: "user-agent", value: settings.userAgent),
        ], body: event.body)
        let clock = ContinuousClock()
        let start = clock.now
        var statusCode: Int?
        var error: String?
        var verdict: WebhookVerdict
        do {
            let response = try await http.current.send(request)
            statusCode = response.status
            verdict = WebhookVerdict.of(status: response.status, retryAfter: response.header("retry-after"), now: self.now)
            if verdict != .succeeded { error = WebhookVerdict.describe(status: response.status, body: response.body) }
        } catch let failure {
            error = failure.description
            verdict = .failed(retryAfter: nil)
        }
        let (seconds, attoseconds) = (clock.now - start).components
        let latency = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return SentAttempt(attempt: WebhookAttempt(at: Timestamp(millisecondsSince1970: at), statusCode: statusCode,
                                                   latencyMilliseconds: latency, error: error),
                           verdict: verdict)
    }

    /// The attempt, the delivery's next state and the endpoint's, in one
    /// write; the wait before the next attempt, nil when none is due.
    private func record(_ sent: SentAttempt, of delivery: WebhookDelivery,
                        to endpoint: WebhookEndpoint) async throws -> WebhookRetry? {
        let now = self.now
        let made = delivery.attempts + 1
        let (schedule, disableAfter, mails) = (settings.schedule, settings.disableAfterMilliseconds, self.mails)
        let unit = Double.random(in: 0..<1)
        let next = try await storage.durableWrite { handle -> (status: WebhookDeliveryStatus, due: Int64?) in
            try WebhookDeliveryStore.addAttempt(handle, delivery: delivery.id, sent.attempt)
            var status = WebhookDeliveryStatus.failed
            var due: Int64?
            var error = sent.attempt.error
            switch sent.verdict {
            case .succeeded:
                status = .succeeded
                try WebhookEndpointStore.succeeded(handle, id: endpoint.id, now: now)
            case .gone:
                error = (error ?? "answered 410") + "; the endpoint asked for nothing more and is disabled"
                try Self.disable(handle, endpoint.id, .gone, mails: mails, now: now)
            case .failed(let retryAfter):
                let since = try WebhookEndpointStore.failed(handle, id: endpoint.id, now: now) ?? now
                if now - since >= disableAfter {
                    error = (error ?? "failed") + "; every attempt to the endpoint failed since "
                        + Timestamp(millisecondsSince1970: since).rfc3339 + ", so it is disabled"
                    try Self.disable(handle, endpoint.id, .failing, mails: mails, now: now)
                } else if let delay = schedule.delay(afterAttempts: made, unit: unit, retryAfter: retryAfter) {
                    status = .pending
                    due = now + delay
                }
            }
            if try WebhookDeliveryStore.advance(handle, id: delivery.id, made: made, status: status, next: due,
                                                statusCode: sent.attempt.statusCode, error: error, now: now) {
                return (status, due)
            }
            // An admin's retry or a replay moved the delivery meanwhile: it
            // is attempted again when it says, by this job.
            guard let current = try WebhookDeliveryStore.find(handle, id: delivery.id), current.status == .pending else {
                return (.succeeded, nil)
            }
            return (.pending, current.nextAttemptAt?.millisecondsSince1970 ?? now)
        }
        switch sent.verdict {
        case .succeeded: counters.record(.succeeded, latencyMilliseconds: sent.attempt.latencyMilliseconds)
        case .gone: counters.record(.gone, latencyMilliseconds: sent.attempt.latencyMilliseconds)
        case .failed: counters.record(next.status == .pending ? .retried : .failed,
                                      latencyMilliseconds: sent.attempt.latencyMilliseconds)
        }
        guard next.status == .pending, let due = next.due else { return nil }
        return WebhookRetry(delayMilliseconds: max(0, due - now),
                            reason: "attempt \(made) of delivery \(delivery.id): \(sent.attempt.error ?? "moved")")
    }

    /// Why a pending delivery ends without an attempt: its endpoint was
    /// deleted (`cancelled`) or is disabled, or its event was pruned (`failed`).
    private static func ending(_ target: WebhookAttemptTarget) -> (WebhookDeliveryStatus, String) {
        guard let endpoint = target.endpoint else { return (.cancelled, "its endpoint was deleted") }
        guard endpoint.isEnabled else {
            return (.failed, "its endpoint is disabled (\(endpoint.disabledReason?.rawValue ?? "admin"))")
        }
        return (.failed, "its event was pruned (webhooks_retention)")
    }

    /// Disabled by the service, and the admins told when mail is on.
    static func disable(_ handle: any StorageHandle, _ endpoint: String, _ reason: WebhookDisabledReason, mails: Bool,
                        now: Int64) throws {
        if try WebhookEndpointStore.disable(handle, id: endpoint, reason: reason, now: now), mails {
            try handle.enqueue(try WebhookEndpointNotice(endpointID: endpoint, reason: reason).request(at: now))
        }
    }
}
