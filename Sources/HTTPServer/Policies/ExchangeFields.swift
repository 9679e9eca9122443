/// The fields the exchange policies add to every response of a route:
/// `traceparent` / `tracestate`, the policy's `Cache-Control`, and the
/// server's `RateLimit-Policy` / `RateLimit`. ``ResponseHead`` writes them
/// straight into the head's bytes after the handler's own fields, instead
/// of their being added to the response's field list: the handler's list
/// is often shared (a cached representation's, the common JSON one), so
/// adding to it would copy it, and the `RateLimit` value would be a string
/// of its own. Field lines of one name keep their order, so a
/// handler's `RateLimit` items (per-user) stay before the server's
/// (RFC 9110 5.3).
struct ExchangeFields: Sendable {
    var trace: TraceContext?
    /// The route policy's, when the handler set none (a static string of the policy).
    var cacheControl: String?
    var rateLimit: RateLimitState?

    /// One policy's state after a request took a token (or was refused).
    struct RateLimitState: Sendable {
        /// `RateLimit-Policy`'s value, made once per limiter.
        let policyField: String
        let name: String
        let decision: TokenBucket.Decision
    }

    func write(into head: inout [UInt8]) {
        if let trace {
            head.append(contentsOf: "traceparent: ".utf8)
            trace.write(into: &head)
            head.append(contentsOf: "\r\n".utf8)
            if let state = trace.traceState { Self.appendField("tracestate", state, to: &head) }
        }
        if let cacheControl { Self.appendField("Cache-Control", cacheControl, to: &head) }
        if let rateLimit {
            Self.appendField("RateLimit-Policy", rateLimit.policyField, to: &head)
            let (remaining, reset) = switch rateLimit.decision {
            case .allowed(let remaining, let reset): (remaining, reset)
            case .refused(let retryAfter): (0, retryAfter)
            }
            // draft-ietf-httpapi-ratelimit-headers-11, 5: `"name";r=<remaining>;t=<seconds to full>`.
            head.append(contentsOf: "RateLimit: \"".utf8)
            head.append(contentsOf: rateLimit.name.utf8)
            head.append(contentsOf: "\";r=".utf8)
            ResponseHead.appendDecimal(max(0, remaining), to: &head)
            head.append(contentsOf: ";t=".utf8)
            ResponseHead.appendDecimal(max(0, reset), to: &head)
            head.append(contentsOf: "\r\n".utf8)
        }
    }

    /// Bytes these fields take in a head, at most (for reserving its buffer).
    var capacity: Int {
        var total = 0
        if let trace { total += 15 + TraceContext.length + (trace.traceState.map { $0.utf8.count + 14 } ?? 0) }
        if let cacheControl { total += 17 + cacheControl.utf8.count }
        if let rateLimit { total += 20 + rateLimit.policyField.utf8.count + 60 + rateLimit.name.utf8.count }
        return total
    }

    private static func appendField(_ name: StaticString, _ value: String, to head: inout [UInt8]) {
        head.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        head.append(contentsOf: ": ".utf8)
        head.append(contentsOf: value.utf8)
        head.append(contentsOf: "\r\n".utf8)
    }
}
