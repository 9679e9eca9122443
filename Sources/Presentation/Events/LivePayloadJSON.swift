import Contexts

/// A live event's payload as the JSON of its `data` line. Each feature's
/// payload type conforms beside its route group, so `/events` writes every
/// composed feature's events without naming one.
protocol LivePayloadJSON {
    func liveJSON() throws -> [UInt8]
}

extension LiveReset: LivePayloadJSON {
    func liveJSON() throws -> [UInt8] { try JSONBody.encode(["reason": reason]) }
}
