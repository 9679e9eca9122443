import Dispatch
import Glibc
import Synchronization

/// Standard output for log lines, shared by every logger of the process so
/// lines keep their order. Access lines are buffered and written in batches
/// (at most every 50 ms, or at 64 KiB), so logging each request costs a
/// memory copy rather than a write(2) per request; any other line flushes
/// the buffer and itself at once. A `kill -9` can lose at most the last
/// 50 ms of access lines, never a lifecycle event.
///
/// `@unchecked Sendable`: the timer is only touched in init and deinit; the
/// pending bytes are behind a mutex.
final class LogOutput: @unchecked Sendable {
    private static let flushThreshold = 64 * 1024
    private let buffer = PendingBytes()
    private let timer: DispatchSourceTimer

    init(flushInterval: DispatchTimeInterval = .milliseconds(50)) {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "axiom.log-output"))
        timer.schedule(deadline: .now() + flushInterval, repeating: flushInterval, leeway: .milliseconds(10))
        timer.setEventHandler { [buffer] in buffer.drain() }
        timer.resume()
    }

    deinit { timer.cancel() }

    /// For access lines: written with the next batch.
    func buffered(_ line: [UInt8]) {
        let full = buffer.bytes.withLock { bytes -> Bool in
            bytes.append(contentsOf: line)
            return bytes.count >= Self.flushThreshold
        }
        if full { flush() }
    }

    /// For every other line: written now, after whatever is buffered.
    func immediate(_ line: String) {
        buffer.bytes.withLock { bytes in
            bytes.append(contentsOf: line.utf8)
            PendingBytes.writeAll(bytes)
            bytes.removeAll(keepingCapacity: true)
        }
    }

    func flush() { buffer.drain() }
}

/// Lines waiting for the next batch.
private final class PendingBytes: Sendable {
    let bytes = Mutex<[UInt8]>([])

    func drain() {
        bytes.withLock { bytes in
            guard !bytes.isEmpty else { return }
            Self.writeAll(bytes)
            bytes.removeAll(keepingCapacity: true)
        }
    }

    static func writeAll(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(STDOUT_FILENO, raw.baseAddress! + offset, raw.count - offset)
                if written > 0 { offset += written } else if written < 0 && errno == EINTR { continue } else { return }
            }
        }
    }
}
