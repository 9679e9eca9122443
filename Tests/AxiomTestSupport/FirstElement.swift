/// The first element `stream` yields, or nil when none comes within `limit`.
/// The limit only guards against a hang (an update published before the
/// call is already buffered); a test asserts on the element, never on time.
public func firstElement<Stream: AsyncSequence & Sendable>(of stream: Stream, within limit: Duration = .seconds(10)) async
    -> Stream.Element? where Stream.Element: Sendable {
    await withHangGuard(limit, otherwise: nil) {
        do {
            for try await element in stream { return element }
        } catch {
            return nil
        }
        return nil
    }
}

/// What `operation` answers, or `fallback` when it has not answered within
/// `limit`: a guard against a hang, never a timing assertion.
public func withHangGuard<T: Sendable>(_ limit: Duration, otherwise fallback: T,
                                       _ operation: @escaping @Sendable () async -> T) async -> T {
    await withTaskGroup(of: T.self) { group in
        group.addTask { await operation() }
        group.addTask {
            try? await Task.sleep(for: limit)
            return fallback
        }
        let first = await group.next() ?? fallback
        group.cancelAll()
        return first
    }
}
