import CZlib

/// The gzip content coding (RFC 9110 8.4.1.3) through the system zlib, in
/// one call: our bodies are complete byte arrays, never streams.
enum Gzip {
    /// `bytes` gzip-encoded at `level` (1 fastest … 9 smallest), or nil if
    /// zlib refused (then the identity body is sent).
    static func compress(_ bytes: [UInt8], level: Int32) -> [UInt8]? {
        var stream = z_stream()
        // windowBits 15 + 16: a gzip header and trailer instead of zlib's (zlib.h, deflateInit2).
        let status = deflateInit2_(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY,
                                   zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        // deflateBound is an upper limit for the whole output, so one
        // Z_FINISH call completes (zlib.h: "deflate ... in a single step").
        let bound = Int(deflateBound(&stream, uLong(bytes.count)))
        var output = [UInt8](repeating: 0, count: bound)
        let result: Int32 = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.baseAddress
                stream.avail_out = uInt(out.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard result == Z_STREAM_END else { return nil }
        output.removeLast(bound - Int(stream.total_out))
        return output
    }
}
