/// What to do with a request once its head is parsed and before any body
/// byte is read: dispatch it to a route's handler, or answer it at once
/// (404, 405 with Allow, 417, 501, OPTIONS). Deciding this early is what lets
/// `Expect: 100-continue` be answered honestly.
enum RequestAdmission {
    /// A parsed head and what was decided about it before its body arrived.
    struct PendingRequest {
        enum Action {
            case dispatch(Router.Route, parameters: RouteParameters, target: RequestTarget)
            /// Answer without calling a handler (404, 405, 417, 501…).
            case answer(HTTPResponse)
        }

        let head: RequestHead
        let requestID: String
        let action: Action
        let terms: ExchangeTerms
    }

    /// `cors` and `origin` (the request's, when on its list) answer CORS
    /// preflights for routed paths.
    static func decide(_ head: RequestHead, router: Router, requestID: String,
                       cors: CORSPolicy? = nil, origin: String? = nil) -> PendingRequest.Action {
        func problem(_ error: HTTPError) -> PendingRequest.Action {
            .answer(ProblemDetails.response(for: error, requestID: requestID))
        }
        guard head.method.isStandard else {
            return problem(HTTPError(.notImplemented, code: "method_not_implemented",
                                     detail: "The method \(head.method) is not implemented by this server."))
        }
        let target: RequestTarget
        do {
            target = try RequestTarget.parse(head.target)
        } catch {
            return problem(HTTPError(error.status, code: error.code, detail: error.detail))
        }
        if case .unsupported(let value) = head.expectation {
            return problem(HTTPError(.expectationFailed, code: "expectation_failed",
                                     detail: "Only 'Expect: 100-continue' is supported, not '\(value)'."))
        }
        if target == .asterisk {
            guard head.method == .options else {
                return problem(HTTPError(.badRequest, code: "bad_request", detail: "The '*' target is only valid for OPTIONS."))
            }
            return .answer(HTTPResponse(status: .noContent, headers: ["Allow": "DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT"]))
        }
        switch router.match(head.method, segments: target.segments) {
        case .found(let route, let parameters):
            return .dispatch(route, parameters: parameters, target: target)
        case .methodNotAllowed(let allowed):
            let allow = allowed.map(\.rawValue).joined(separator: ", ")
            if head.method == .options {
                if let cors, let origin, CORSPolicy.isPreflight(head.method, head.headers) {
                    return .answer(cors.preflight(origin: origin, methods: allowed))
                }
                return .answer(HTTPResponse(status: .noContent, headers: ["Allow": allow]))
            }
            return problem(HTTPError(.methodNotAllowed, code: "method_not_allowed",
                                     detail: "\(head.method) is not allowed on \(target.path); allowed: \(allow).",
                                     headers: ["Allow": allow]))
        case .notFound:
            return problem(HTTPError(.notFound, code: "not_found", detail: "No resource at \(target.path)."))
        }
    }
}
