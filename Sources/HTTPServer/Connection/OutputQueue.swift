import Glibc

/// Response bytes waiting for the socket, as the segments they were produced
/// in (heads, bodies, chunks), written with one `sendmsg` gathering several
/// at once, so a body is never copied into a bigger buffer.
struct OutputQueue {
    private var segments: [[UInt8]] = []
    /// Whether each segment is a head `appendHead` wrote into a buffer of
    /// this queue's own (never a handler's body, which may be shared or large).
    private var isOwnHead: [Bool] = []
    /// A sent head's buffer, emptied and kept for the next head, so a
    /// response's head costs no allocation once the first has been sent.
    /// Kept only up to `spareHeadLimit` bytes
    /// of capacity, so an idle connection holds a few KiB at most.
    private var spareHead: [UInt8] = []
    private static let spareHeadLimit = 4096
    private var firstOffset = 0
    private(set) var pendingBytes = 0

    var isEmpty: Bool { pendingBytes == 0 }

    mutating func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        pendingBytes += bytes.count
        segments.append(bytes)
        isOwnHead.append(false)
    }

    /// Appends what `write` puts into a buffer of the queue's own: the
    /// spare one when there is one.
    mutating func appendHead(reservingCapacity capacity: Int, _ write: (inout [UInt8]) -> Void) {
        var head: [UInt8] = []
        swap(&head, &spareHead)
        head.reserveCapacity(capacity)
        write(&head)
        guard !head.isEmpty else { return }
        pendingBytes += head.count
        segments.append(head)
        isOwnHead.append(true)
    }

    enum FlushResult {
        case flushed
        case wouldBlock
        case failed(Int32)
    }

    /// Writes as much as the socket takes now.
    mutating func flush(to fd: Int32) -> FlushResult {
        while pendingBytes > 0 {
            let written = gatherAndSend(fd)
            if written >= 0 {
                consume(written)
                continue
            }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .failed(errno)
            }
        }
        return .flushed
    }

    mutating func removeAll() {
        segments.removeAll()
        isOwnHead.removeAll()
        firstOffset = 0
        pendingBytes = 0
    }

    private static let maxSegmentsPerSend = 64

    private func gatherAndSend(_ fd: Int32) -> Int {
        let count = min(segments.count, Self.maxSegmentsPerSend)
        return withUnsafeTemporaryAllocation(of: iovec.self, capacity: count) { vectors in
            // The pointers stay valid: `segments` is not mutated until sendmsg returns.
            for index in 0..<count {
                segments[index].withUnsafeBytes { bytes in
                    let offset = index == 0 ? firstOffset : 0
                    vectors[index] = iovec(iov_base: UnsafeMutableRawPointer(mutating: bytes.baseAddress! + offset),
                                           iov_len: bytes.count - offset)
                }
            }
            var message = msghdr()
            message.msg_iov = vectors.baseAddress
            message.msg_iovlen = count
            return sendmsg(fd, &message, Int32(MSG_NOSIGNAL))
        }
    }

    private mutating func consume(_ written: Int) {
        pendingBytes -= written
        var remaining = written
        var drop = 0
        while remaining > 0 {
            let available = segments[drop].count - firstOffset
            if remaining >= available {
                remaining -= available
                firstOffset = 0
                drop += 1
            } else {
                firstOffset += remaining
                remaining = 0
            }
        }
        // A sent head's buffer is referenced by `segments` alone: swapped
        // out of it, emptying it keeps its storage without a copy.
        for index in 0..<drop where isOwnHead[index] && spareHead.capacity == 0
            && segments[index].capacity <= Self.spareHeadLimit {
            swap(&spareHead, &segments[index])
            spareHead.removeAll(keepingCapacity: true)
        }
        if drop == segments.count {
            segments.removeAll(keepingCapacity: true)
            isOwnHead.removeAll(keepingCapacity: true)
        } else if drop > 0 {
            segments.removeFirst(drop)
            isOwnHead.removeFirst(drop)
        }
    }
}
