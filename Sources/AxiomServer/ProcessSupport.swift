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
/// handler. The first one runs `onSignal`; later ones are ignored while the
/// shutdown it started is under way.
enum ShutdownSignals {
    static func install(_ onSignal: @escaping @Sendable () -> Void) -> [DispatchSourceSignal] {
        let fired = Atomic<Bool>(false)
        return [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
            source.setEventHandler {
                if !fired.exchange(true, ordering: .relaxed) { onSignal() }
            }
            source.resume()
            return source
        }
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
