extension OutboundHTTP {
    /// A new connection to `origin`: every resolved address judged by the
    /// policy, TLS for https (SNI and the certificate checked for the host,
    /// or for the address of an IP literal), within the connect timeout
    /// and what is left of the request's.
    func connect(_ origin: Origin, by deadline: ContinuousClock.Instant) async throws(OutboundHTTPError)
        -> OutboundConnection {
        let connectBy = min(deadline, ContinuousClock.now.advanced(by: settings.connectTimeout))
        let options = ConnectOptions(timeout: max(.zero, ContinuousClock.now.duration(to: connectBy)),
                                     tls: origin.scheme == .https ? tls : nil,
                                     admit: { [policy = settings.addressPolicy] in policy.admits($0) })
        return try await DeadlineRace.run(by: connectBy, timedOut: .timedOut("connecting to \(origin)"),
                                          abandon: { $0.close() }) { () throws(OutboundHTTPError) in
            do throws(NetError) {
                return try await OutboundConnection.connect(host: origin.host, port: origin.port, options: options)
            } catch {
                throw error.outboundError(phase: "connecting to \(origin)")
            }
        }
    }
}
