/// A fixed-bucket histogram: `counts[i]` counts values ≤ `upperBounds[i]`
/// (and > the previous bound); the last count is for values above every bound.
public struct Histogram: Sendable, Equatable {
    public let upperBounds: [Double]
    public private(set) var counts: [Int]
    public private(set) var count: Int = 0
    public private(set) var sum: Double = 0
    public private(set) var max: Double = 0

    public init(upperBounds: [Double]) {
        precondition(upperBounds == upperBounds.sorted(), "bounds must ascend")
        self.upperBounds = upperBounds
        self.counts = Array(repeating: 0, count: upperBounds.count + 1)
    }

    public mutating func record(_ value: Double) {
        let bucket = upperBounds.firstIndex(where: { value <= $0 }) ?? upperBounds.count
        counts[bucket] += 1
        count += 1
        sum += value
        if value > max { max = value }
    }

    public var mean: Double { count == 0 ? 0 : sum / Double(count) }

    /// An upper estimate of the `q`-quantile (0…1): the bound of the bucket
    /// holding it, or `max` for the overflow bucket.
    public func quantile(_ q: Double) -> Double {
        guard count > 0 else { return 0 }
        let rank = Swift.max(1, Int((q * Double(count)).rounded(.up)))
        var seen = 0
        for (index, c) in counts.enumerated() {
            seen += c
            if seen >= rank { return index < upperBounds.count ? Swift.min(upperBounds[index], max) : max }
        }
        return max
    }
}
