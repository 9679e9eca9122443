import Foundation

/// Runs `body` on a thread of its own and returns its result: for a client
/// that blocks for long (many responses, pauses between reads), so it does
/// not hold one of the cooperative pool's few threads, which the other
/// tests running in parallel need for their waits.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}
