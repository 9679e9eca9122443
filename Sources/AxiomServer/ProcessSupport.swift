import Dispatch
import Glibc
import Synchronization

/// The process environment as a dictionary (no Foundation needed).
enum ProcessInfoEnvironment {
    static func current() -> [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }
}

enum FileHandleStandardError {
    static func write(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}

/// SIGTERM and SIGINT, delivered through Dispatch instead of an async-signal
/// handler, as a stream the entry point awaits. The signals are ignored by
/// default from the moment this is called, so one arriving during start-up
/// is not lost and does not kill the process.
enum ShutdownSignals {
    static func stream() -> AsyncStream<Int32> {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self, bufferingPolicy: .bufferingNewest(1))
        let queue = DispatchQueue(label: "axiom.signals")
        let sources = [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
        // The sources live as long as the stream does.
        let retained = RetainedSources(sources)
        continuation.onTermination = { _ in retained.cancel() }
        return stream
    }

    /// Keeps the signal sources alive; only cancelled once, from onTermination.
    private final class RetainedSources: @unchecked Sendable {
        private let sources: [DispatchSourceSignal]
        init(_ sources: [DispatchSourceSignal]) { self.sources = sources }
        func cancel() { sources.forEach { $0.cancel() } }
    }
}

/// Raises the soft open-file limit to the hard limit, so the connection cap
/// (10,000 by default) is reachable where the soft limit is the usual 1,024.
enum FileDescriptorLimit {
    @discardableResult
    static func raiseToHardLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return -1 }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return Int(clamping: limit.rlim_cur)
    }
}
