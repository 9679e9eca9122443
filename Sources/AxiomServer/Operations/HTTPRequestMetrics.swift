import Axiom
import HTTPServer
import Sharding

/// Requests by route pattern, method and status, and their latency by route
/// and method, recorded from the server's exchange reports. Every label's
/// values are bounded by construction: route patterns (never paths; "" when
/// none matched), the standard methods plus `_OTHER`, and status codes:
/// a label value per unknown method would let any client grow the
/// exposition, and every scrape's time, without bound.
final class HTTPRequestMetrics: Sendable {
    /// Seconds; from a cache hit to a password hash.
    static let latencyBounds: [Double] = [0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05,
                                          0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    struct Series: Hashable {
        let method: String
        let route: String
    }

    struct Latency {
        var counts = [UInt64](repeating: 0, count: HTTPRequestMetrics.latencyBounds.count + 1)
        var sum = 0.0
    }

    /// One series' requests by status and its latency, under one key: an
    /// exchange hashes its series once (a table per metric hashed the
    /// method and route three times a request).
    struct Counts {
        var statuses: [Int: UInt64] = [:]
        var latency = Latency()

        mutating func record(status: Int, bucket: Int, seconds: Double) {
            statuses[status, default: 0] += 1
            latency.counts[bucket] += 1
            latency.sum += seconds
        }

        mutating func add(_ other: Counts) {
            statuses.merge(other.statuses, uniquingKeysWith: +)
            for index in latency.counts.indices { latency.counts[index] += other.latency.counts[index] }
            latency.sum += other.latency.sum
        }
    }

    struct Table {
        var series: [Series: Counts] = [:]
        var responseBytes: UInt64 = 0

        /// Adds `other`'s counts to these.
        mutating func add(_ other: Table) {
            for (series, theirs) in other.series { self.series[series, default: Counts()].add(theirs) }
            responseBytes &+= other.responseBytes
        }
    }

    /// One table per event loop, added up at scrape time.
    private let tables = LockShards(perLoop: { Table() })

    func record(_ exchange: CompletedExchange) {
        let series = Series(method: Self.methodLabel(exchange.method), route: exchange.route)
        let seconds = Double(exchange.durationNanoseconds) / 1e9
        let bucket = Self.latencyBounds.firstIndex { seconds <= $0 } ?? Self.latencyBounds.count
        tables.withLock(loop: exchange.eventLoop) { table in
            table.series[series, default: Counts()].record(status: exchange.status.code, bucket: bucket, seconds: seconds)
            table.responseBytes &+= UInt64(exchange.bodyBytes)
        }
    }

    /// The method as a label value: a standard method's name, `_OTHER` for
    /// any other token (OpenTelemetry's HTTP semantic conventions do the
    /// same), "" when the request line did not parse.
    static func methodLabel(_ method: HTTPMethod?) -> String {
        guard let method else { return "" }
        return method.isStandard ? method.rawValue : "_OTHER"
    }

    func write(to text: inout PrometheusText) {
        var snapshot = Table()
        for shard in tables.map({ $0 }) { snapshot.add(shard) }
        let order: (Series, Series) -> Bool = { ($0.route, $0.method) < ($1.route, $1.method) }
        text.family("axiom_http_requests_total", "counter",
                    "Requests answered, by route pattern (\"\" when none matched), method and status.")
        let sorted = snapshot.series.sorted(by: { order($0.key, $1.key) })
        for (series, counts) in sorted {
            for (status, count) in counts.statuses.sorted(by: { $0.key < $1.key }) {
                text.sample("axiom_http_requests_total", [("route", series.route), ("method", series.method),
                                                          ("status", String(status))], Double(count))
            }
        }
        text.family("axiom_http_request_duration_seconds", "histogram",
                    "Time from a complete request head to the response queued, by route pattern and method.")
        for (series, counts) in sorted {
            text.histogram("axiom_http_request_duration_seconds", [("route", series.route), ("method", series.method)],
                           bounds: Self.latencyBounds, counts: counts.latency.counts, sum: counts.latency.sum)
        }
        text.family("axiom_http_response_body_bytes_total", "counter", "Response body bytes sent.",
                    value: Double(snapshot.responseBytes))
    }
}
