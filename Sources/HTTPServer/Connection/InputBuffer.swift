/// The bytes read from a socket and not yet consumed by the parser: one
/// contiguous allocation the kernel reads into directly, compacted when its
/// tail runs out, grown only up to a cap.
final class InputBuffer {
    private var storage: UnsafeMutableRawPointer
    private(set) var capacity: Int
    private var readerIndex = 0
    private var writerIndex = 0

    init(capacity: Int) {
        self.capacity = capacity
        storage = .allocate(byteCount: capacity, alignment: 16)
    }

    deinit { storage.deallocate() }

    var readableCount: Int { writerIndex - readerIndex }
    var isEmpty: Bool { readerIndex == writerIndex }

    var readable: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: storage + readerIndex, count: writerIndex - readerIndex)
    }

    /// Makes room for at least `minimum` bytes after the unread ones and
    /// returns that space.
    func writableSpace(minimum: Int) -> UnsafeMutableRawBufferPointer {
        if capacity - writerIndex < minimum {
            if readerIndex > 0 {
                let count = readableCount
                if count > 0 { (storage).copyMemory(from: storage + readerIndex, byteCount: count) }
                readerIndex = 0
                writerIndex = count
            }
            if capacity - writerIndex < minimum {
                let newCapacity = max(capacity * 2, writerIndex + minimum)
                let grown = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
                grown.copyMemory(from: storage, byteCount: writerIndex)
                storage.deallocate()
                storage = grown
                capacity = newCapacity
            }
        }
        return UnsafeMutableRawBufferPointer(start: storage + writerIndex, count: capacity - writerIndex)
    }

    func didWrite(_ count: Int) { writerIndex += count }

    func consume(_ count: Int) {
        readerIndex += count
        if readerIndex == writerIndex {
            readerIndex = 0
            writerIndex = 0
        }
    }

    /// Gives back a grown allocation once everything is consumed, so a
    /// connection idling after a large body holds 4 KiB, not its peak.
    func shrinkIfEmpty() {
        guard isEmpty, capacity > 16 * 1024 else { return }
        storage.deallocate()
        capacity = 4096
        storage = .allocate(byteCount: capacity, alignment: 16)
        readerIndex = 0
        writerIndex = 0
    }

    func removeAll() {
        readerIndex = 0
        writerIndex = 0
    }
}
