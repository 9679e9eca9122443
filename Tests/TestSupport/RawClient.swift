import Glibc

/// A blocking TCP client for tests (shared by the test targets): sends exact bytes and reads responses
/// as they come off the wire, so tests see what a real client sees. Every
/// read has a timeout (default 30 s), so a server bug fails a test instead of
/// hanging the suite.
public final class RawClient {
    public struct Response {
        public var statusLine: String
        public var status: Int
        public var headers: [(String, String)]
        public var body: [UInt8]

        public func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
        public func headers(_ name: String) -> [String] {
            headers.filter { $0.0.lowercased() == name.lowercased() }.map(\.1)
        }
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    public enum ClientError: Error { case connectFailed(Int32), closedEarly(String), timedOut, malformed(String) }

    public let fd: Int32
    private var buffer: [UInt8] = []

    /// `sourceAddress` binds the client to another loopback address
    /// (127.0.0.2 …, all of 127/8 is local on Linux), so a test can be
    /// several clients to a server that tells them apart by address.
    public init(port: Int, receiveTimeoutSeconds: Int = 30, sourceAddress: String? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if let sourceAddress {
            try Self.call(fd, Self.address(sourceAddress, port: 0)) { Glibc.bind($0, $1, $2) }
        }
        try Self.call(fd, Self.address("127.0.0.1", port: port)) { Glibc.connect($0, $1, $2) }
        var timeout = timeval(tv_sec: receiveTimeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { Glibc.close(fd) }

    private static func address(_ host: String, port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr(host)
        return address
    }

    /// `bind` or `connect` of `fd` to `address`; on failure `fd` is closed
    /// and the error thrown.
    private static func call(_ fd: Int32, _ address: sockaddr_in,
                             _ operation: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32) throws {
        var address = address
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { operation(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(fd)
            throw ClientError.connectFailed(code)
        }
    }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Sends `request` and reads the response to it.
    public func exchange(_ request: String) throws -> Response {
        try send(request)
        return try readResponse()
    }

    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw ClientError.closedEarly("send failed, errno \(errno)") }
            offset += written
        }
    }

    /// Reads more bytes; false on EOF. Throws on timeout or reset.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer.append(contentsOf: chunk[0..<count])
                return true
            }
            if count == 0 { return false }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { throw ClientError.timedOut }
            if errno == ECONNRESET { return false }
            throw ClientError.closedEarly("recv errno \(errno)")
        }
    }

    private func readLine() throws -> String {
        while true {
            if let lf = buffer.firstIndex(of: 0x0A) {
                let line = buffer[..<lf]
                buffer.removeFirst(lf + 1)
                return String(decoding: line.last == 0x0D ? line.dropLast() : line, as: UTF8.self)
            }
            guard try fill() else { throw ClientError.closedEarly("EOF inside a line") }
        }
    }

    private func readExactly(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard try fill() else { throw ClientError.closedEarly("EOF inside a body") }
        }
        let bytes = Array(buffer[..<count])
        buffer.removeFirst(count)
        return bytes
    }

    /// Reads one response. `forHead` means no body follows whatever the headers say.
    public func readResponse(forHead: Bool = false) throws -> Response {
        var response = try readHead()
        let status = response.status
        if forHead || status < 200 || status == 204 || status == 304 { return response }
        if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            while let chunk = try readChunk() { response.body += chunk }
        } else if let length = response.header("Content-Length").flatMap({ Int($0) }) {
            response.body = try readExactly(length)
        } else {
            while try fill() {}
            response.body = buffer
            buffer = []
        }
        return response
    }

    /// Reads a status line and header fields only, leaving the body to
    /// `readChunk()`: for streamed responses read as they arrive.
    public func readHead() throws -> Response {
        let statusLine = try readLine()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw ClientError.malformed("status line '\(statusLine)'")
        }
        var headers: [(String, String)] = []
        while true {
            let line = try readLine()
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { throw ClientError.malformed("header '\(line)'") }
            headers.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingSpaces()))
        }
        return Response(statusLine: statusLine, status: status, headers: headers, body: [])
    }

    /// The next chunk of a chunked body, or nil after the last one (its
    /// trailer section consumed).
    public func readChunk() throws -> [UInt8]? {
        let sizeLine = try readLine()
        guard let size = Int(sizeLine.split(separator: ";")[0], radix: 16) else {
            throw ClientError.malformed("chunk size '\(sizeLine)'")
        }
        if size == 0 {
            while try !readLine().isEmpty {}
            return nil
        }
        let data = try readExactly(size)
        guard try readLine().isEmpty else { throw ClientError.malformed("chunk without CRLF") }
        return data
    }

    /// True once the server has closed its side (EOF), after any bytes left.
    public func isClosedByPeer() throws -> Bool {
        if !buffer.isEmpty { return false }
        return try !fill()
    }

    /// Reads everything until the server closes the connection.
    public func readToEOF() throws -> [UInt8] {
        while try fill() {}
        defer { buffer = [] }
        return buffer
    }
}

extension String {
    public func trimmingSpaces() -> String {
        var slice = Substring(self)
        while slice.first == " " || slice.first == "\t" { slice.removeFirst() }
        while slice.last == " " || slice.last == "\t" { slice.removeLast() }
        return String(slice)
    }
}
