import Contexts
import Domain
import HTTPServer

/// `GET /events`: the session's live updates as Server-Sent Events over a
/// chunked response. Each event has an `id`, its change's sequence in the
/// change outbox (a plain integer, the same on every replica: send it back
/// as `Last-Event-ID` to resume on any replica, after a restart too; the
/// replay is the current state of what changed since), a type named by
/// the feature that declares it (`cart.updated`, `order.created`, …; each
/// composed `LiveFeature`) and its JSON on one `data` line, written by the
/// payload's `LivePayloadJSON` conformance. A comment
/// line every `heartbeat` keeps proxies from closing an idle stream. A
/// `Last-Event-ID` that cannot be resumed gets an `event: reset` first:
/// fetch the cart and orders again. The stream ends on logout, when the
/// session's token is revoked or swept at its expiry, and at shutdown.
///
/// A browser's `EventSource` cannot send `Authorization`: it mints a
/// one-use ticket with `POST /events/tickets` (signed in; 201
/// `{"ticket", "expires_at"}`, valid 30 s) and opens
/// `GET /events?ticket=…`. After a drop it mints another and passes the
/// last id it saw as `last_event_id` (the header wins when both are sent).
/// The access log names the route pattern, never the request target, so a
/// ticket is not logged.
public struct EventRoutes: RouteGroup {
    public typealias Bound = LiveUpdatesContext
    let live: SessionBinding<LiveUpdatesContext>
    let heartbeat: Duration

    public init(gate: SessionGate, heartbeat: Duration) {
        live = SessionBinding(gate: gate)
        self.heartbeat = heartbeat
    }

    public func register(on router: inout Router) {
        // The session stays in use while the stream is open: a client that
        // only listens is not idle, and its contexts (and the events kept
        // for resuming) must not expire under it.
        router.post("/events/tickets", policy: .accountData, live.handler { [live] request in
            let ticket = try await live.issueEventTicket(for: request)
            return try JSONBody.response(EventTicketBody(ticket), status: .created, headers: ["Cache-Control": "no-store"])
        })
        router.get("/events", live.streamHandler { [heartbeat] request, use in
            let resumeAfter = request.http.headers["last-event-id"] ?? request.http.query["last_event_id"]
            let subscription = try await request.context.liveUpdates(after: resumeAfter)
            var headers = HTTPFields()
            headers.set("Content-Type", "text/event-stream; charset=utf-8")
            headers.set("Cache-Control", "no-store")
            // Proxies such as nginx would otherwise hold events back.
            headers.set("X-Accel-Buffering", "no")
            return HTTPResponse(status: .ok, headers: headers, body: .stream { writer in
                defer { use.end() }
                await Self.stream(subscription, to: writer, heartbeat: heartbeat)
            })
        })
    }

    /// Writes the stream until the subscription ends (logout, release), the
    /// client goes away, or the task is cancelled (shutdown).
    static func stream(_ subscription: LiveSubscription, to writer: HTTPBodyWriter, heartbeat: Duration) async {
        do {
            // The reconnection delay a browser's EventSource should use.
            var opening = "retry: 2000\n\n"
            if subscription.mustRefetch {
                opening += "event: reset\ndata: {\"reason\":\"Last-Event-ID cannot be resumed; fetch the cart and orders again\"}\n\n"
            }
            try await writer.write(opening)
            for event in subscription.replay { try await writer.write(try encode(event)) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await event in subscription.events { try await writer.write(try encode(event)) }
                }
                group.addTask {
                    while true {
                        try await Task.sleep(for: heartbeat)
                        try await writer.write(": heartbeat\n\n")
                    }
                }
                // The events ending (or either failing) ends the stream.
                try await group.next()
                group.cancelAll()
            }
        } catch {
            // The client went away, the server is shutting down, or an
            // event could not be encoded: the stream simply ends.
        }
    }

    static func encode(_ event: LiveEvent) throws -> String {
        guard let payload = event.update.payload as? any LivePayloadJSON else {
            throw UnwritablePayload(kind: event.update.kind)
        }
        let json = try payload.liveJSON()
        // No `id:` line for an event without one: an EventSource keeps the
        // last id it had (WHATWG HTML, 9.2.6), so its resume point stays.
        let id = event.id.map { "id: \($0)\n" } ?? ""
        return id + "event: \(event.update.kind)\ndata: \(String(decoding: json, as: UTF8.self))\n\n"
    }

    /// A feature composed without a `LivePayloadJSON` conformance for its
    /// payload: the stream ends rather than send an event it cannot write.
    struct UnwritablePayload: Error {
        let kind: String
    }
}
