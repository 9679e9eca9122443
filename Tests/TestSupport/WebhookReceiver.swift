import Foundation

/// `scripts/webhook_receiver.py` run for one test: an HTTPS server on a CA
/// it made, verifying every delivery with the `standardwebhooks` reference
/// library (not this service's code) against the secrets the test
/// registers, and recording each request.
public final class WebhookReceiver: @unchecked Sendable {
    /// One request as the receiver recorded it.
    public struct Delivery: Decodable, Sendable, Equatable {
        public let receivedAt: Double
        public let endpoint: String
        public let webhookID: String?
        public let webhookTimestamp: String?
        public let type: String?
        public let dataID: String?
        public let version: Int?
        /// The body's `timestamp`.
        public let eventTimestamp: String?
        /// How many `v1,…` signatures the header held.
        public let signatures: Int
        /// For each signature, the index (in the registered order) of the
        /// secret it was made with; nil for one none of them made.
        public let matched: [Int?]
        public let verified: Bool
        /// The library's complaint when it did not verify.
        public let error: String?
        /// "204", "410", "500", "429", "400", "404", "timeout" or "reset".
        public let answer: String
        /// The receiver's number for the connection it came on.
        public let connection: Int
        /// 1 for the first request with this endpoint and webhook-id.
        public let attempt: Int

        enum CodingKeys: String, CodingKey {
            case receivedAt = "received_at", endpoint, webhookID = "webhook_id"
            case webhookTimestamp = "webhook_timestamp", type, dataID = "data_id", version
            case eventTimestamp = "event_timestamp", signatures, matched, verified, error, answer, connection, attempt
        }
    }

    /// What an endpoint answers a verified delivery (the script's doc says more).
    public enum Behaviour: Sendable {
        case ok
        case gone
        case fail
        case slow(seconds: Double)
        /// A `share` of deliveries fail (500, a stall of `stall` seconds,
        /// a reset, 429 with Retry-After: 1), one webhook-id at most
        /// `maxFailures` times in a row.
        case random(seed: Int, share: Double = 0.3, stall: Double = 3, maxFailures: Int = 3)

        var json: Any {
            switch self {
            case .ok: "ok"
            case .gone: "gone"
            case .fail: "fail"
            case .slow(let seconds): ["kind": "slow", "seconds": seconds]
            case .random(let seed, let share, let stall, let maxFailures):
                ["kind": "random", "seed": seed, "share": share, "stall": stall, "max_failures": maxFailures]
            }
        }
    }

    public let directory: URL
    public let port: UInt16
    /// The CA that signed its certificate (for localhost and 127.0.0.1); nil over plain HTTP.
    public let caFile: String?
    private let server: PythonServer
    private let lock = NSLock()
    private var endpoints: [String: Any] = [:]

    /// - Parameter tls: false serves plain HTTP (`--tls none`).
    public init(tls: Bool = true) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-webhooks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        server = try PythonServer(script: SMTPSink.script("webhook_receiver.py"),
                                  arguments: ["--dir", directory.path, "--lifetime", "600", "--tls", tls ? "trustme" : "none"],
                                  logPath: directory.appendingPathComponent("server.log").path)
        let ready = try server.readyObject()
        port = UInt16(ready["port"] as? Int ?? 0)
        caFile = ready["ca"] as? String
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    public func stop() { server.stop() }

    /// The URL an endpoint named `name` is created with.
    public func url(_ name: String) -> String {
        "\(caFile == nil ? "http" : "https")://localhost:\(port)/hooks/\(name)"
    }

    /// Gives `name` its secrets (the newest first, as a rotation has them)
    /// and behaviour: the endpoints file is rewritten whole and renamed
    /// into place, and the receiver reads it again before its next delivery.
    public func register(_ name: String, secrets: [String], behaviour: Behaviour = .ok) throws {
        // Under the lock: two registrations at once must not rename an older file over a newer one.
        try lock.withLock {
            endpoints[name] = ["secrets": secrets, "behaviour": behaviour.json]
            let data = try JSONSerialization.data(withJSONObject: endpoints)
            try data.write(to: directory.appendingPathComponent("endpoints.json"), options: Data.WritingOptions.atomic)
        }
    }

    /// Every request recorded, in the order received.
    public func deliveries() throws -> [Delivery] {
        guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent("deliveries.jsonl").path)
        else { return [] }
        // The last line may still be being written; only whole lines count.
        let lines = data.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast()
        return try lines.filter { !$0.isEmpty }.map { try JSONDecoder().decode(Delivery.self, from: Data($0)) }
    }

    /// Waits (at most `timeout`) until at least `count` recorded requests
    /// satisfy `predicate`; every recorded request then.
    public func waitForDeliveries(_ count: Int = 1, timeout: TimeInterval = 30,
                                  where predicate: (Delivery) -> Bool = { _ in true }) throws -> [Delivery] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let all = try deliveries()
            let matching = all.filter(predicate).count
            if matching >= count { return all }
            if Date() > deadline {
                throw PythonServer.Failure(description: "\(matching) of \(count) deliveries arrived within \(timeout) s")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }
}
