import CZlib

/// Entity tags (RFC 9110 8.8.3). A handler that knows its resource's
/// version sets `ETag` from it with ``strong(_:)``; otherwise a route whose
/// policy asks for one gets a tag computed from the representation's bytes.
public enum EntityTag {
    /// `"opaque"`, a strong validator. `opaque` must be made of etagc
    /// characters (no `"`, no spaces, no controls).
    public static func strong(_ opaque: String) -> String { "\"" + opaque + "\"" }

    /// A strong tag over the exact bytes: length, CRC-32 and Adler-32 (zlib's
    /// vectorised checksums, about 64 bits together; far cheaper than a
    /// cryptographic hash on a 20 KB list, and a validator only has to tell
    /// one resource's versions apart).
    public static func of(_ body: [UInt8]) -> String {
        let (crc, adler) = body.withUnsafeBufferPointer { buffer -> (UInt, UInt) in
            (UInt(crc32(0, buffer.baseAddress, uInt(buffer.count))),
             UInt(adler32(1, buffer.baseAddress, uInt(buffer.count))))
        }
        // One string, fixed-width hex: "<crc32><adler32><length>" (one
        // allocation; this runs on every tagged read).
        return String(unsafeUninitializedCapacity: 34) { buffer in
            buffer[0] = UInt8(ascii: "\"")
            TraceIDSource.writeHex(UInt64(crc) << 32 | UInt64(adler), into: buffer, at: 1)
            TraceIDSource.writeHex(UInt64(body.count), into: buffer, at: 17)
            buffer[33] = UInt8(ascii: "\"")
            return 34
        }
    }

    /// The tag of the gzip-encoded representation: a different
    /// representation, so a different validator (8.8.3: a strong tag
    /// changes with the content coding), kept weak when the original was.
    static func gzipVariant(of tag: String) -> String {
        guard tag.hasSuffix("\"") else { return tag }
        return String(tag.dropLast()) + "-gzip\""
    }

    /// Whether `If-None-Match` (every field value) matches `tag`: `*`, or
    /// a listed tag equal under weak comparison (13.1.2: If-None-Match uses
    /// the weak comparison, so `W/"x"` matches `"x"`).
    static func noneMatchHits(_ values: [String], tag: String) -> Bool {
        let ours = opaque(tag)
        for value in values {
            for member in value.split(separator: ",") {
                let candidate = member.trimmingSpaces
                if candidate == "*" { return true }
                if opaque(candidate) == ours { return true }
            }
        }
        return false
    }

    /// Whether `If-Match` (every field value) holds for the current
    /// representation, whose identity-coded tag is `tag`: `*`, or a listed
    /// tag equal under the strong comparison (13.1.1: a weak tag never
    /// matches). The tag we sent for the gzip-coded representation of the
    /// same state (``gzipVariant(of:)``) is accepted as well: a browser that
    /// read the resource compressed holds only that tag, and it names the
    /// same state of the resource as the identity tag it was made from.
    public static func matchHits(_ values: [String], tag: String) -> Bool {
        let gzipTag = gzipVariant(of: tag)
        for value in values {
            for member in value.split(separator: ",") {
                let candidate = member.trimmingSpaces
                if candidate == "*" || candidate == tag || candidate == gzipTag { return true }
            }
        }
        return false
    }

    private static func opaque<S: StringProtocol>(_ tag: S) -> Substring {
        let text = Substring(tag)
        return text.hasPrefix("W/") ? text.dropFirst(2) : text
    }
}
