import Foundation
import TestSupport

/// A Server-Sent Events reader over a raw socket: sends `GET /events` and
/// hands out the stream's blocks as they arrive. Reads time out after 30 s
/// (RawClient), so a missing event fails the test instead of hanging it.
/// `@unchecked Sendable`: each instance is used by one thread at a time
/// (a test may hand it to a reader thread and wait for that thread).
final class EventStreamClient: @unchecked Sendable {
    struct Event {
        let id: String?
        let type: String?
        let data: String
        var object: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] ?? [:]
        }
    }

    let head: RawClient.Response
    private let client: RawClient
    private var pending = ""

    /// `target`: `/events`, or with a query (`?ticket=…`) as a browser opens it.
    init(port: Int, token: String?, lastEventID: String? = nil, target: String = "/events") throws {
        client = try RawClient(port: port)
        var request = "GET \(target) HTTP/1.1\r\nHost: t\r\nAccept: text/event-stream\r\n"
        if let token { request += "Authorization: Bearer \(token)\r\n" }
        if let lastEventID { request += "Last-Event-ID: \(lastEventID)\r\n" }
        try client.send(request + "\r\n")
        head = try client.readHead()
    }

    /// The next block (an event, a comment, a `retry:`), or nil when the
    /// stream ended.
    func nextBlock() throws -> String? {
        while true {
            if let end = pending.range(of: "\n\n") {
                let block = String(pending[..<end.lowerBound])
                pending.removeSubrange(..<end.upperBound)
                return block
            }
            guard let chunk = try client.readChunk() else { return nil }
            pending += String(decoding: chunk, as: UTF8.self)
        }
    }

    /// The blocks left until the stream ends, or nil when more than
    /// `maxBlocks` arrive first (a stream that does not end fails a test
    /// instead of hanging it: heartbeats keep each read from timing out).
    func blocksUntilEnd(maxBlocks: Int = 50) throws -> [String]? {
        var blocks: [String] = []
        while let block = try nextBlock() {
            blocks.append(block)
            if blocks.count > maxBlocks { return nil }
        }
        return blocks
    }

    /// The next event, skipping comments (`: heartbeat`) and `retry:`.
    /// `comments` collects the comments passed over.
    func nextEvent(comments: inout [String]) throws -> Event? {
        while let block = try nextBlock() {
            var id: String?, type: String?, data: [String] = []
            for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix(":") { comments.append(String(line)) }
                else if line.hasPrefix("id: ") { id = String(line.dropFirst(4)) }
                else if line.hasPrefix("event: ") { type = String(line.dropFirst(7)) }
                else if line.hasPrefix("data: ") { data.append(String(line.dropFirst(6))) }
            }
            if type != nil || !data.isEmpty { return Event(id: id, type: type, data: data.joined(separator: "\n")) }
        }
        return nil
    }

    func nextEvent() throws -> Event? {
        var ignored: [String] = []
        return try nextEvent(comments: &ignored)
    }
}
