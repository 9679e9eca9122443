/// The first element `stream` yields, or nil when none comes within `limit`.
/// The limit only guards against a hang (an update published before the
/// call is already buffered); a test asserts on the element, never on time.
public func firstElement<Element: Sendable>(of stream: AsyncStream<Element>,
                                            within limit: Duration = .seconds(10)) async -> Element? {
    await withTaskGroup(of: Element?.self) { group in
        group.addTask {
            var iterator = stream.makeAsyncIterator()
            return await iterator.next()
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
