/// The fields the exchange policies add to every response of a route:
/// `traceparent` / `tracestate`, the policy's `Cache-Control`, and every
/// rate-limit policy's `RateLimit-Policy` / `RateLimit` (the handler's, then
/// the server's). ``ResponseHead`` writes them
/// straight into the head's bytes after the handler's own fields, instead
/// of their being added to the response's field list: the handler's list
/// is often shared (a cached representation's, the common JSON one), so
/// adding to it would copy it, and the `RateLimit` value would be a string
/// of its own. Field lines of one name are one list (RFC 9110 5.3): a
/// policy per item.
struct ExchangeFields: Sendable {
    var trace: TraceContext?
    /// The route policy's, when the handler set none (a static string of the policy).
    var cacheControl: String?
    /// The application's policies' states (`HTTPResponse.rateLimits`),
    /// written before the server's own.
    var applicationRateLimits: [RateLimitState] = []
    var rateLimit: RateLimitState?

    func write(into head: inout [UInt8]) {
        if let trace {
            head.append(contentsOf: "traceparent: ".utf8)
            trace.write(into: &head)
            head.append(contentsOf: "\r\n".utf8)
            if let state = trace.traceState { Self.appendField("tracestate", state, to: &head) }
        }
        if let cacheControl { Self.appendField("Cache-Control", cacheControl, to: &head) }
        for state in applicationRateLimits { Self.append(state, to: &head) }
        if let rateLimit { Self.append(rateLimit, to: &head) }
    }

    /// `RateLimit-Policy` and `RateLimit` (`"name";r=<remaining>;t=<seconds to full>`).
    private static func append(_ state: RateLimitState, to head: inout [UInt8]) {
        appendField("RateLimit-Policy", state.policyField, to: &head)
        head.append(contentsOf: "RateLimit: \"".utf8)
        head.append(contentsOf: state.name.utf8)
        head.append(contentsOf: "\";r=".utf8)
        ResponseHead.appendDecimal(state.remaining, to: &head)
        head.append(contentsOf: ";t=".utf8)
        ResponseHead.appendDecimal(state.resetSeconds, to: &head)
        head.append(contentsOf: "\r\n".utf8)
    }

    /// Bytes these fields take in a head, at most (for reserving its buffer).
    var capacity: Int {
        var total = 0
        if let trace { total += 15 + TraceContext.length + (trace.traceState.map { $0.utf8.count + 14 } ?? 0) }
        if let cacheControl { total += 17 + cacheControl.utf8.count }
        for state in applicationRateLimits { total += state.capacity }
        if let rateLimit { total += rateLimit.capacity }
        return total
    }

    private static func appendField(_ name: StaticString, _ value: String, to head: inout [UInt8]) {
        head.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        head.append(contentsOf: ": ".utf8)
        head.append(contentsOf: value.utf8)
        head.append(contentsOf: "\r\n".utf8)
    }
}
