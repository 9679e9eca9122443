/// Finds the CRLF that ends a line of a message head (request or status
/// line, field lines, chunk-size lines) in bytes that arrive in pieces.
/// It remembers how far the current line has been searched, so a line
/// arriving a byte at a time is scanned once, not quadratically. The
/// request and the response parser each keep one.
struct LineScanner {
    enum Line {
        /// The line ends at this index (its CR).
        case complete(end: Int)
        /// No LF yet, and the line is still within its limit.
        case incomplete
        /// Longer than the limit, complete or not.
        case tooLong
        /// A LF without its CR (RFC 9112 2.2: refused, not tolerated).
        case bareLF
    }

    /// Bytes of the current line already searched; 0 at a line's start.
    private(set) var scanned = 0

    /// The line that starts at `start`, at most `limit` bytes long.
    @inline(__always)
    mutating func next(_ bytes: UnsafeRawBufferPointer, from start: Int, limit: Int) -> Line {
        var index = start + scanned
        while index < bytes.count {
            if bytes[index] == ASCII.lf {
                // The length first, with the same bound as a line still
                // arriving (below), so the answer does not depend on how the
                // bytes were segmented.
                guard index - start <= limit + 1 else { return .tooLong }
                guard index > start, bytes[index - 1] == ASCII.cr else { return .bareLF }
                scanned = 0
                return .complete(end: index - 1)
            }
            index += 1
        }
        scanned = index - start
        // Without its CR LF yet, the line is already over the limit.
        if scanned > limit + 1 { return .tooLong }
        return .incomplete
    }
}
