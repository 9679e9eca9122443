import Glibc

/// `axiom-server healthcheck [--host H] [--port N] [--path P]`: asks a
/// running server on this machine for `P` (default `/ready`) and exits 0 on
/// a 2xx answer, 1 otherwise. It is what a container's HEALTHCHECK runs, so
/// it needs no curl in the image. Reads `AXIOM_PORT` (and `AXIOM_HOST`,
/// where `0.0.0.0` means loopback) like the server does, so the same
/// environment serves both. `--help` prints the usage and exits 0; a bad
/// option is the usage and exit 2.
enum HealthCheckCommand {
    static let name = "healthcheck"

    static let usageText = """
        usage: axiom-server healthcheck [--host H] [--port N] [--path /ready]
          GET http://H:N/P once (3 s limit per step); exit 0 on a 2xx answer, 1 otherwise.
          --host H   default AXIOM_HOST, else 127.0.0.1 (0.0.0.0 means loopback)
          --port N   default AXIOM_PORT, else 8080
          --path P   default /ready
        """

    static func run(arguments: [String], environment: [String: String]) -> Int32 {
        var host = environment["AXIOM_HOST"] ?? "127.0.0.1"
        var port = environment["AXIOM_PORT"].flatMap { Int($0) } ?? 8080
        var path = "/ready"
        var index = 0
        while index < arguments.count {
            let flag = arguments[index]
            if flag == "--help" || flag == "-h" {
                print(usageText)
                return 0
            }
            guard index + 1 < arguments.count else { return usage("\(flag) needs a value") }
            let value = arguments[index + 1]
            switch flag {
            case "--host": host = value
            case "--port":
                guard let number = Int(value), (1...65535).contains(number) else { return usage("bad port '\(value)'") }
                port = number
            case "--path":
                guard value.hasPrefix("/") else { return usage("path must start with /") }
                path = value
            default: return usage("unknown option '\(flag)'")
            }
            index += 2
        }
        if host == "0.0.0.0" || host.isEmpty { host = "127.0.0.1" }
        switch probe(host: host, port: port, path: path) {
        case .success(let statusLine):
            print("healthy: GET \(path) → \(statusLine)")
            return 0
        case .failure(let failure):
            print("healthcheck: \(url(host: host, port: port, path: path)) \(failure.sentence)")
            return 1
        }
    }

    static func url(host: String, port: Int, path: String) -> String {
        "http://\(host.contains(":") ? "[\(host)]" : host):\(port)\(path)"
    }

    private static func usage(_ problem: String) -> Int32 {
        print("axiom-server healthcheck: \(problem)\n\(usageText)")
        return 2
    }

    /// Why the probe failed, as the end of a sentence: "did not answer:
    /// connection refused", or "answered HTTP/1.1 404 Not Found".
    struct Failure: Error {
        let sentence: String

        static func noAnswer(_ why: String) -> Failure {
            Failure(sentence: "did not answer: " + why.prefix(1).lowercased() + why.dropFirst())
        }

        static func osError() -> Failure { noAnswer(String(cString: strerror(errno))) }
    }

    /// One HTTP/1.1 GET with `Connection: close` and a 3 s limit on each
    /// socket operation; the status line decides.
    static func probe(host: String, port: Int, path: String) -> Result<String, Failure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let address = found else {
            return .failure(.noAnswer("cannot resolve \(host)"))
        }
        defer { freeaddrinfo(found) }
        let fd = socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
        guard fd >= 0 else { return .failure(.osError()) }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 3, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard connect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 else {
            return .failure(.osError())
        }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\nUser-Agent: axiom-healthcheck\r\n\r\n".utf8)
        let sent = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == request.count else { return .failure(.noAnswer("the request could not be sent")) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while !received.contains(0x0A) && received.count < 4096 {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 { received += buffer[0..<count] } else if count < 0 && errno == EINTR { continue } else { break }
        }
        guard let end = received.firstIndex(of: 0x0D) ?? received.firstIndex(of: 0x0A) else {
            return .failure(.noAnswer("the connection closed without a status line"))
        }
        let statusLine = String(decoding: received[..<end], as: UTF8.self)
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, let status = Int(parts[1]) else { return .failure(.noAnswer("not HTTP (\(statusLine))")) }
        return (200..<300).contains(status) ? .success(statusLine) : .failure(Failure(sentence: "answered \(statusLine)"))
    }
}
