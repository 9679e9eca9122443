import Capabilities
import Foundation
import Synchronization

/// Wall time the test moves by hand: payment expiry and webhook tolerance
/// are tested without sleeping.
public final class ManualWallClock: WallClock {
    private let instant: Mutex<Date>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        instant = Mutex(start)
    }

    public func now() -> Date { instant.withLock { $0 } }

    public func advance(seconds: Double) { instant.withLock { $0 += seconds } }
}
