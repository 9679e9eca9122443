import Synchronization

/// A session in use beyond one call (see `SessionRegistry.beginUse`): the
/// registry neither expires nor evicts it until the use ends. Ending twice
/// is harmless, and a use that is dropped without `end()` (a response that
/// was never sent) ends when it is released, so no session stays pinned.
public final class SessionUse<Root: Context>: Sendable {
    public let context: Root
    private let finish: Mutex<(@Sendable () -> Void)?>

    init(context: Root, finish: @escaping @Sendable () -> Void) {
        self.context = context
        self.finish = Mutex(finish)
    }

    public func end() {
        let finish = self.finish.withLock { finish in
            defer { finish = nil }
            return finish
        }
        finish?()
    }

    deinit { end() }
}
