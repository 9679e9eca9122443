import CSodium
import Dispatch
import FoundationEssentials
import Synchronization

/// argon2id password hashing through libsodium (`crypto_pwhash_str_alg`),
/// on a bounded pool: at most `maxConcurrent` hashes or verifications run at
/// once (default: one per core), each on a Dispatch worker; the rest wait as
/// suspended continuations in FIFO order. A flood of logins therefore costs
/// at most `maxConcurrent × memLimit` of memory and never occupies the Swift
/// concurrency pool.
///
/// Hashes are libsodium's self-describing strings (`$argon2id$v=19$m=…`),
/// which carry their own salt and costs; `verify` uses the costs stored in
/// the hash, so raising `parameters` later keeps old hashes valid
/// (`needsRehash` tells when to upgrade one after a successful login).
public final class PasswordHasher: Sendable {
    /// argon2id cost parameters.
    public struct Parameters: Sendable, Equatable {
        /// Passes over memory (`opslimit`).
        public var opsLimit: UInt64
        /// Bytes of memory per hash (`memlimit`).
        public var memLimit: Int

        public init(opsLimit: UInt64, memLimit: Int) {
            self.opsLimit = opsLimit
            self.memLimit = memLimit
        }

        /// libsodium's INTERACTIVE costs (2 passes, 64 MiB): the default.
        public static var interactive: Parameters {
            Parameters(opsLimit: UInt64(crypto_pwhash_opslimit_interactive()), memLimit: crypto_pwhash_memlimit_interactive())
        }

        /// The smallest costs libsodium accepts (1 pass, 8 KiB). For tests only.
        public static var minimum: Parameters {
            Parameters(opsLimit: UInt64(crypto_pwhash_opslimit_min()), memLimit: crypto_pwhash_memlimit_min())
        }
    }

    /// What the pool has done; `peakConcurrent` never exceeds `maxConcurrent`.
    public struct Statistics: Sendable, Equatable {
        public var hashes = 0
        public var verifications = 0
        /// Hash or verify operations running right now.
        public var running = 0
        /// The most that ever ran at the same time.
        public var peakConcurrent = 0
    }

    /// Longer passwords are refused (hashing cost does not depend on length,
    /// but there is no reason to accept megabytes).
    public static let maxPasswordBytes = 4096

    public let parameters: Parameters
    public let maxConcurrent: Int
    /// Operations that may wait for a slot; one more is refused (`busy`).
    public let maxWaiting: Int
    private let limiter: AsyncLimiter
    private let workers = DispatchQueue(label: "axiom.security.pwhash", qos: .userInitiated, attributes: .concurrent)
    private let counters = Mutex(Statistics())

    /// - Parameters:
    ///   - parameters: argon2id costs for new hashes (default INTERACTIVE).
    ///   - maxConcurrent: operations allowed at once (default: active cores).
    ///   - maxWaiting: operations that may wait for a slot beyond those;
    ///     more are refused with `SecurityError.busy`.
    public init(parameters: Parameters = .interactive, maxConcurrent: Int = ProcessInfo.processInfo.activeProcessorCount,
                maxWaiting: Int = 64) throws {
        try Sodium.ensureReady()
        let opsRange = UInt64(crypto_pwhash_opslimit_min())...UInt64(crypto_pwhash_opslimit_max())
        let memRange = crypto_pwhash_memlimit_min()...crypto_pwhash_memlimit_max()
        guard opsRange.contains(parameters.opsLimit) else {
            throw SecurityError.invalidParameters("opsLimit \(parameters.opsLimit) outside \(opsRange)")
        }
        guard memRange.contains(parameters.memLimit) else {
            throw SecurityError.invalidParameters("memLimit \(parameters.memLimit) outside \(memRange)")
        }
        guard maxConcurrent > 0 else {
            throw SecurityError.invalidParameters("maxConcurrent must be positive")
        }
        guard maxWaiting >= 0 else {
            throw SecurityError.invalidParameters("maxWaiting must not be negative")
        }
        self.parameters = parameters
        self.maxConcurrent = maxConcurrent
        self.maxWaiting = maxWaiting
        self.limiter = AsyncLimiter(limit: maxConcurrent, maxWaiting: maxWaiting)
    }

    // MARK: Capability

    public var isAvailable: Bool { Sodium.isReady }

    public func checkAvailability() async -> Bool { Sodium.isReady }

    // MARK: Hashing

    /// An argon2id hash string of `password` with a fresh random salt.
    public func hash(_ password: String) async throws -> String {
        guard password.utf8.count <= Self.maxPasswordBytes else {
            throw SecurityError.passwordTooLong(maxBytes: Self.maxPasswordBytes)
        }
        let parameters = self.parameters
        let result: String? = try await runBounded(isVerification: false) {
            // NUL-terminated copy: never empty, so its base address is never
            // nil; zeroed after use. The length given to libsodium excludes the NUL.
            var bytes = Array(password.utf8) + [0]
            defer { sodium_memzero(&bytes, bytes.count) }
            var output = [CChar](repeating: 0, count: crypto_pwhash_strbytes())
            let rc = bytes.withUnsafeBufferPointer { password in
                password.withMemoryRebound(to: CChar.self) { password in
                    crypto_pwhash_str_alg(
                        &output, password.baseAddress!, UInt64(password.count - 1),
                        parameters.opsLimit, parameters.memLimit, crypto_pwhash_alg_argon2id13())
                }
            }
            guard rc == 0 else { return nil }
            let terminator = output.firstIndex(of: 0) ?? output.count
            return String(decoding: output[..<terminator].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        guard let result else { throw SecurityError.hashingFailed }
        return result
    }

    /// True when `password` matches `hash`; false for a wrong password or a
    /// malformed hash. Throws only `busy` (the queue is full).
    public func verify(_ password: String, against hash: String) async throws(SecurityError) -> Bool {
        guard password.utf8.count <= Self.maxPasswordBytes, hash.utf8.count < crypto_pwhash_strbytes() else { return false }
        return try await runBounded(isVerification: true) {
            var bytes = Array(password.utf8) + [0]
            defer { sodium_memzero(&bytes, bytes.count) }
            return bytes.withUnsafeBufferPointer { password in
                password.withMemoryRebound(to: CChar.self) { password in
                    hash.withCString { hash in
                        crypto_pwhash_str_verify(hash, password.baseAddress!, UInt64(password.count - 1)) == 0
                    }
                }
            }
        }
    }

    /// True when `hash` was made with other costs (or another algorithm)
    /// than `parameters`: rehash the password at the next successful login.
    public func needsRehash(_ hash: String) -> Bool {
        guard hash.utf8.count < crypto_pwhash_strbytes() else { return true }
        return hash.withCString {
            crypto_pwhash_str_needs_rehash($0, parameters.opsLimit, parameters.memLimit) != 0
        }
    }

    public var statistics: Statistics { counters.withLock { $0 } }

    /// Operations waiting for a slot right now.
    public var waiting: Int { limiter.waiting }

    // MARK: Pool

    private func runBounded<T: Sendable>(isVerification: Bool,
                                         _ work: @escaping @Sendable () -> T) async throws(SecurityError) -> T {
        guard await limiter.acquire() else { throw .busy }
        defer { limiter.release() }
        return await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            workers.async { [self] in
                counters.withLock { s in
                    s.running += 1
                    s.peakConcurrent = max(s.peakConcurrent, s.running)
                }
                let value = work()
                counters.withLock { s in
                    s.running -= 1
                    if isVerification { s.verifications += 1 } else { s.hashes += 1 }
                }
                continuation.resume(returning: value)
            }
        }
    }
}
