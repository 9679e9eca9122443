import Axiom
import Dispatch
import Glibc
import Sharding
import Synchronization

/// Standard output for log lines, shared by every logger of the process.
/// Access lines are buffered per event loop and written in batches (at
/// most every 50 ms, or at 64 KiB a loop), so logging each request costs a
/// memory copy under the loop's own lock rather than a write(2), or a lock
/// every loop takes; any other line flushes every batch and then itself at
/// once. Lines of one loop keep their order; lines of different loops may
/// reach the output up to one batch apart (each carries its time). A
/// `kill -9` can lose at most the last 50 ms of access lines, never a
/// lifecycle event.
///
/// `@unchecked Sendable`: the timer is only touched in init and deinit; the
/// pending bytes are behind their shards' locks.
final class LogOutput: @unchecked Sendable {
    private static let flushThreshold = 64 * 1024
    private let batches = PendingBatches()
    private let timer: DispatchSourceTimer

    init(flushInterval: DispatchTimeInterval = .milliseconds(50)) {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "axiom.log-output"))
        timer.schedule(deadline: .now() + flushInterval, repeating: flushInterval, leeway: .milliseconds(10))
        timer.setEventHandler { [batches] in batches.drainAll() }
        timer.resume()
    }

    deinit { timer.cancel() }

    /// For access lines: written with event loop `loop`'s next batch.
    func buffered(_ line: [UInt8], loop: Int) {
        let full = batches.pending.withLock(loop: loop) { bytes -> Bool in
            bytes.append(contentsOf: line)
            return bytes.count >= Self.flushThreshold
        }
        if full { batches.drain(loop: loop) }
    }

    /// For every other line: written now, after whatever is buffered.
    func immediate(_ line: String) {
        batches.drainAll()
        batches.write(Array(line.utf8))
    }

    func flush() { batches.drainAll() }
}

/// Lines waiting for their loop's next batch.
private final class PendingBatches: Sendable {
    let pending = LockShards(perLoop: { [UInt8]() })
    /// Whole batches go out one at a time: two loops' batches written to a
    /// pipe at once could interleave mid-line.
    private let writing = Mutex<Void>(())

    func drain(loop: Int) {
        pending.withLock(loop: loop) { bytes in drain(&bytes) }
    }

    func drainAll() {
        _ = pending.map { bytes in drain(&bytes) }
    }

    private func drain(_ bytes: inout [UInt8]) {
        guard !bytes.isEmpty else { return }
        write(bytes)
        bytes.removeAll(keepingCapacity: true)
    }

    func write(_ bytes: [UInt8]) {
        writing.withLock { _ in
            bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let written = Glibc.write(STDOUT_FILENO, raw.baseAddress! + offset, raw.count - offset)
                    if written > 0 { offset += written } else if written < 0 && errno == EINTR { continue } else { return }
                }
            }
        }
    }
}
