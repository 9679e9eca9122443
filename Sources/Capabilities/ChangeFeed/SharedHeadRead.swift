import Synchronization

/// Reads the outbox head for read barriers the way group commit writes:
/// callers that arrive while a read is in flight wait for the next one
/// (which starts after they arrived, so it sees every write acknowledged
/// before they asked), and one query answers all of them.
final class SharedHeadRead: Sendable {
    private struct State {
        var reading = false
        var waiting: [CheckedContinuation<Int64, any Error>] = []
    }

    private let state = Mutex(State())
    private let read: @Sendable () async throws -> Int64
    private let readCount = Atomic<Int>(0)

    /// Queries made so far (each served every caller of its round).
    var reads: Int { readCount.load(ordering: .relaxed) }

    /// Callers waiting for the next round.
    var waiting: Int { state.withLock { $0.waiting.count } }

    init(read: @escaping @Sendable () async throws -> Int64) {
        self.read = read
    }

    func current() async throws -> Int64 {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int64, any Error>) in
            let starts = state.withLock { state -> Bool in
                state.waiting.append(continuation)
                if state.reading { return false }
                state.reading = true
                return true
            }
            if starts { Task { await self.runRounds() } }
        }
    }

    private func runRounds() async {
        while true {
            let round = state.withLock { state -> [CheckedContinuation<Int64, any Error>]? in
                if state.waiting.isEmpty {
                    state.reading = false
                    return nil
                }
                defer { state.waiting = [] }
                return state.waiting
            }
            guard let round else { return }
            let result: Result<Int64, any Error>
            readCount.add(1, ordering: .relaxed)
            do { result = .success(try await read()) } catch { result = .failure(error) }
            for continuation in round { continuation.resume(with: result) }
        }
    }
}
