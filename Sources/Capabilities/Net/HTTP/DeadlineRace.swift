import Synchronization

/// Waits for an operation until a deadline and no longer, even when the
/// operation cannot be interrupted: getaddrinfo(3) has no timeout of its
/// own, and a connect waits on it. At the deadline the caller gets
/// `timedOut`; the operation finishes on its own, and what it produced
/// then goes to `abandon` (a connection nobody will use is closed).
enum DeadlineRace {
    static func run<T: Sendable>(
        by deadline: ContinuousClock.Instant, timedOut: OutboundHTTPError,
        abandon: @escaping @Sendable (T) -> Void = { _ in },
        _ work: @escaping @Sendable () async throws(OutboundHTTPError) -> T
    ) async throws(OutboundHTTPError) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, OutboundHTTPError>, Never>) in
            let outcome = FirstOutcome(continuation)
            let timer = Task {
                guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
                _ = outcome.resume(.failure(timedOut))
            }
            Task {
                let result: Result<T, OutboundHTTPError>
                do throws(OutboundHTTPError) { result = .success(try await work()) } catch { result = .failure(error) }
                timer.cancel()
                if !outcome.resume(result), case .success(let value) = result { abandon(value) }
            }
        }
        return try result.get()
    }
}

/// A continuation resumed by whichever side comes first; the other's
/// attempt reports false.
private final class FirstOutcome<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Result<T, OutboundHTTPError>, Never>?>

    init(_ continuation: CheckedContinuation<Result<T, OutboundHTTPError>, Never>) {
        self.continuation = Mutex(continuation)
    }

    func resume(_ result: Result<T, OutboundHTTPError>) -> Bool {
        let taken = continuation.withLock { slot in
            defer { slot = nil }
            return slot
        }
        taken?.resume(returning: result)
        return taken != nil
    }
}
