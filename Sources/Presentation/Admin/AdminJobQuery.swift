import Domain
import HTTPServer

/// `GET /admin/jobs?state=…&kind=…&limit=…&cursor=…`: both filters
/// optional; the cursor is the previous page's `next_cursor`. Every bad
/// parameter is listed; no other parameter is taken.
struct AdminJobQuery {
    let filter: JobFilter
    let page: PageRequest

    static func from(_ request: HTTPRequest) throws -> AdminJobQuery {
        try KnownQuery.require(request, only: ["state", "kind", "limit", "cursor"])
        let page = try PageRequest.from(request)
        var state: JobState?
        if let text = request.query["state"] {
            guard let parsed = JobState(rawValue: text) else {
                throw ValidationError([FieldError(field: "state", code: .invalidFormat, message:
                    "state must be one of \(JobState.allCases.map(\.rawValue).joined(separator: ", "))")])
            }
            state = parsed
        }
        return AdminJobQuery(filter: JobFilter(state: state, kind: request.query["kind"]), page: page)
    }
}
