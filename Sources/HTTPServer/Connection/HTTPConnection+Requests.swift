/// Requests: admission at the head, the body budget, dispatch to handlers,
/// and queuing their responses.
extension HTTPConnection {
    // MARK: Request bodies

    /// `count` more body bytes (framing included) were consumed: what the
    /// parser now buffers is reserved, and the progress deadline moves.
    func bodyArrived(_ count: Int) {
        machine.bodyBytesArrived(count, now: MonotonicClock.nowNanoseconds())
        guard reserveBody(holding: parser.bufferedBodyBytes) else {
            refuseForBudget(version: pending?.head.version ?? .http1_1)
            return
        }
    }

    /// Reserves the body bytes held beyond those already reserved. Bytes
    /// are reserved as they arrive, not as declared: reserving each
    /// declared Content-Length would let a few hundred heads of large
    /// bodies, with a byte each, take the whole budget.
    func reserveBody(holding total: Int) -> Bool {
        let more = total - bodyReservation
        guard more > 0 else { return true }
        guard core.bodyBudget.withLock({ $0.reserve(more) }) else { return false }
        bodyReservation = total
        return true
    }

    /// Whether a declared Content-Length fits what the budget has left
    /// now: a body that cannot fit is refused before any of it is read
    /// (and before `100 Continue`).
    private func declaredBodyFits(_ head: RequestHead) -> Bool {
        guard case .length(let length) = head.framing else { return true }
        return core.bodyBudget.withLock { length <= $0.available }
    }

    /// 503 with Retry-After and close: the body does not fit the budget.
    /// The body is not read, so the connection cannot be reused.
    func refuseForBudget(version: HTTPVersion) {
        core.statistics.refusedOverBodyBudget.add(1, ordering: .relaxed)
        let requestID = pending?.requestID ?? core.requestIDs.id(from: nil)
        abandonRequest()
        let error = HTTPError(.serviceUnavailable, code: "body_buffer_full",
                              detail: "The server is buffering too many request bodies; retry shortly.",
                              headers: ["Retry-After": "1"])
        writeFinal(ProblemDetails.response(for: error, requestID: requestID), version: version,
                   requestID: requestID, keepAlive: false, terms: pending?.terms)
    }

    /// Drops the request being read and everything buffered for it.
    func abandonRequest() {
        pending = nil
        input.removeAll()
        parser = RequestParser(limits: core.configuration.limits)
        releaseBodyReservation()
    }

    func releaseBodyReservation() {
        guard bodyReservation > 0 else { return }
        let count = bodyReservation
        bodyReservation = 0
        core.bodyBudget.withLock { $0.release(count) }
    }

    // MARK: Requests

    func accept(_ head: RequestHead) {
        let requestID = core.requestIDs.id(from: head.headers["x-request-id"])
        var terms = core.policies.begin(head, peerHost: peerHost, ids: &loop.traceIDs)
        var action = RequestAdmission.decide(head, router: core.router, requestID: requestID,
                                             cors: core.policies.cors, origin: terms.origin)
        if case .dispatch(let route, _, _) = action,
           let refusal = core.policies.admit(route, terms: &terms, leases: &loop.rateLeases,
                                             requestID: requestID) {
            action = .answer(refusal)
        }
        pending = RequestAdmission.PendingRequest(head: head, requestID: requestID, action: action, terms: terms)
        if core.observer != nil {
            var route = ""
            if case .dispatch(let matched, _, _) = action { route = matched.pattern }
            exchange = ExchangeInProgress(method: head.method, route: route, headers: head.headers,
                                          requestID: requestID, trace: terms.trace, client: terms.client,
                                          startedAt: MonotonicClock.nowNanoseconds())
        }
        guard declaredBodyFits(head) else {
            refuseForBudget(version: head.version)
            return
        }
        guard head.expectation == .continue100, head.framing != .none else { return }
        switch action {
        case .dispatch(let route, _, _) where route.readsBody:
            output.append(ResponseHead.continue100)
            flush()
        case .dispatch, .answer:
            // RFC 9110 10.1.1: answer with the final status instead of 100 and
            // do not read the body; the connection cannot be reused after that.
            pending = nil
            machine.stopReadingRequests()
            switch action {
            case .dispatch(let route, let parameters, let target):
                dispatch(route, parameters: parameters, target: target, head: head, requestID: requestID,
                         body: [], trailers: HTTPFields(), keepAlive: false, terms: terms)
            case .answer(let response):
                writeFinal(response, version: head.version, requestID: requestID, keepAlive: false,
                           isHead: head.method == .head, terms: terms)
            }
        }
    }

    func finish(_ request: RequestAdmission.PendingRequest, body: [UInt8], trailers: HTTPFields) {
        let keepAlive = request.head.keepAlive
        switch request.action {
        case .dispatch(let route, let parameters, let target):
            dispatch(route, parameters: parameters, target: target, head: request.head, requestID: request.requestID,
                     body: body, trailers: trailers, keepAlive: keepAlive, terms: request.terms)
        case .answer(let response):
            // A request the server itself found malformed ends the connection (400 → close).
            writeFinal(response, version: request.head.version, requestID: request.requestID,
                       keepAlive: keepAlive && response.status != .badRequest, isHead: request.head.method == .head,
                       terms: request.terms)
        }
    }

    func answerParseError(_ error: HTTPParseError) {
        pending = nil
        let requestID = core.requestIDs.id(from: nil)
        let response = ProblemDetails.response(for: HTTPError(error.status, code: error.code, detail: error.detail),
                                               requestID: requestID)
        writeFinal(response, version: .http1_1, requestID: requestID, keepAlive: false)
    }

    func dispatch(_ route: Router.Route, parameters: RouteParameters, target: RequestTarget, head: RequestHead,
                          requestID: String, body: [UInt8], trailers: HTTPFields, keepAlive: Bool,
                          terms: ExchangeTerms) {
        var request = HTTPRequest(method: head.method, target: head.target, version: head.version, headers: head.headers,
                                  path: target.path, pathSegments: target.segments, query: QueryParameters(target.query),
                                  body: body, trailers: trailers, remoteAddress: remoteAddress, clientAddress: terms.client,
                                  id: requestID, trace: terms.trace)
        request.route = route.pattern
        request.parameters = parameters
        machine.handlerStarted()
        publish()
        let handler = route.handler
        let logger = core.logger
        Task.immediate(executorPreference: loop) { [self] in
            let response: HTTPResponse
            do {
                response = try await handler(request)
            } catch {
                if let problem = (error as? any HTTPResponseError)?.httpError ?? core.router.problem(error) {
                    response = ProblemDetails.response(for: problem, requestID: requestID)
                } else {
                    logger.log(.error, "handler_failed", [("request_id", requestID), ("method", request.method.rawValue),
                                                          ("route", request.route), ("error", String(describing: error))])
                    response = ProblemDetails.response(
                        for: HTTPError(.internalServerError, code: "internal_error",
                                       detail: "The server failed to handle this request."), requestID: requestID)
                }
            }
            respondOnLoop(response, to: head, requestID: requestID, keepAlive: keepAlive, terms: terms)
        }
    }

}
