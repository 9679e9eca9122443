import Axiom
import Foundation
import Glibc
import Synchronization

/// Unpredictable bytes from the kernel's `/dev/urandom`: session tokens,
/// random UUIDs, salts. Unlike `SystemRandomNumberGenerator`, which traps
/// when the kernel refuses, a failure here is a thrown error and marks the
/// capability unavailable; re-creating it (transient) opens the device anew.
public final class RandomCapability: Capability {
    public enum Failure: Error, Equatable {
        case unavailable
        case kernel(errno: Int32)
        case endOfFile
    }

    private let descriptor: Int32
    private let available: Atomic<Bool>

    /// Opens `/dev/urandom` (or `path`, for tests of the failure path).
    public init(path: String = "/dev/urandom") {
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        available = Atomic(descriptor >= 0)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    public var isAvailable: Bool { available.load(ordering: .relaxed) }

    public func checkAvailability() async -> Bool {
        var probe = [UInt8](repeating: 0, count: 16)
        let ok = (try? fill(&probe)) != nil
        available.store(ok, ordering: .relaxed)
        return ok
    }

    /// `count` random bytes.
    public func bytes(_ count: Int) throws -> [UInt8] {
        guard isAvailable else { throw Failure.unavailable }
        var buffer = [UInt8](repeating: 0, count: count)
        try fill(&buffer)
        return buffer
    }

    /// A random (version 4) UUID.
    public func uuid() throws -> UUID {
        var b = try bytes(16)
        b[6] = (b[6] & 0x0F) | 0x40
        b[8] = (b[8] & 0x3F) | 0x80
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                           b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }

    /// A URL-safe base64 token (no padding) of `byteCount` random bytes,
    /// e.g. a session id.
    public func token(byteCount: Int = 32) throws -> String {
        Data(try bytes(byteCount)).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private func fill(_ buffer: inout [UInt8]) throws {
        guard descriptor >= 0 else {
            available.store(false, ordering: .relaxed)
            throw Failure.unavailable
        }
        var filled = 0
        while filled < buffer.count {
            let result = buffer.withUnsafeMutableBytes { raw in
                read(descriptor, raw.baseAddress! + filled, raw.count - filled)
            }
            if result < 0 {
                let code = errno
                if code == EINTR { continue }
                available.store(false, ordering: .relaxed)
                throw Failure.kernel(errno: code)
            }
            if result == 0 {
                available.store(false, ordering: .relaxed)
                throw Failure.endOfFile
            }
            filled += result
        }
    }
}
