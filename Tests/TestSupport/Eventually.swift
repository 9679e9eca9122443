/// Waits until `condition` holds, checking after each short pause.
/// Progress-based: no deadline is asserted. Bounded (about 20 s at the
/// least): a condition that never holds fails the expectations that follow
/// instead of hanging the suite.
public func eventually(_ condition: () async throws -> Bool) async rethrows {
    for _ in 0..<20_000 {
        if try await condition() { return }
        try? await Task.sleep(for: .milliseconds(1))
    }
}
