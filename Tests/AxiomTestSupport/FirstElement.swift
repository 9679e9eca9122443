/// The first element `stream` yields, or nil when none comes within `limit`.
/// The limit only guards against a hang (an update published before the
/// call is already buffered); a test asserts on the element, never on time.
public func firstElement<Stream: AsyncSequence & Sendable>(of stream: Stream, within limit: Duration = .seconds(10)) async
    -> Stream.Element? where Stream.Element: Sendable {
    await withTaskGroup(of: Stream.Element?.self) { group in
        group.addTask {
            do {
                for try await element in stream { return element }
            } catch {
                return nil
            }
            return nil
        }
        group.addTask {
            try? await Task.sleep(for: limit)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
