extension NetError {
    var isTimeout: Bool {
        if case .timedOut = self { return true }
        return false
    }

    /// The error an outbound request reports for this one, met while
    /// `phase` (connecting, sending, waiting for the answer), after
    /// `received` bytes of the answer.
    func outboundError(phase: String, received: Int = 0) -> OutboundHTTPError {
        switch self {
        case .resolutionFailed(let host, _): .unresolvable(host: host)
        case .addressRefused(let host, let addresses): .addressRefused(host: host, addresses: addresses)
        case .connectFailed(let host, let reason): .connectFailed("\(host): \(reason)")
        case .timedOut: .timedOut(phase)
        case .tlsFailed(let reason): .tls(reason)
        case .closedByPeer:
            .connectionClosed(received == 0 ? "by the server while \(phase)" : "by the server after \(received) bytes of the response")
        case .ioFailed(let reason): .connectionClosed("\(reason) while \(phase)")
        }
    }
}
