import Foundation
import TestSupport

extension AccountFlowTests.API {
    /// A request with `body` sent as it is, under `contentType` (none when nil).
    func call(_ method: String, _ path: String, body: [UInt8], contentType: String?,
              token: String? = nil) throws -> RawClient.Response {
        let client = try RawClient(port: port)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Length: \(body.count)\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        if let contentType { head += "Content-Type: \(contentType)\r\n" }
        try client.send(Array((head + "\r\n").utf8) + body)
        return try client.readResponse()
    }
}
