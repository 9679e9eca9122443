import Contexts
import Domain
import HTTPServer

extension AdminRoutes {
    /// The job queue for admins: `GET /admin/jobs` (by state and kind,
    /// newest first, keyset pages), `GET /admin/jobs/{id}`, `POST
    /// /admin/jobs/{id}/retry` (a dead job queued again) and `POST
    /// /admin/jobs/{id}/discard` (a queued or dead job discarded).
    func registerJobs(on router: inout Router) {
        router.get("/admin/jobs", policy: .accountData, admin.handler { request in
            let query = try AdminJobQuery.from(request.http)
            return .json(.ok, JobJSON.page(try await request.context.jobs(
                query.filter, limit: query.page.limit, after: query.page.cursor)))
        })
        router.get("/admin/jobs/{id}", policy: .accountData, admin.handler { request in
            try KnownQuery.require(request.http, only: [])
            return .json(.ok, JobJSON.bytes(try await request.context.job(try Self.jobID(request.http))))
        })
        router.post("/admin/jobs/{id}/retry", policy: .accountData, admin.handler { request in
            return .json(.ok, JobJSON.bytes(try await request.context.retryJob(try Self.jobID(request.http))))
        })
        router.post("/admin/jobs/{id}/discard", policy: .accountData, admin.handler { request in
            return .json(.ok, JobJSON.bytes(try await request.context.discardJob(try Self.jobID(request.http))))
        })
    }

    /// The `{id}` of a job route; text that is no job id is `job_not_found`.
    static func jobID(_ request: HTTPRequest) throws -> Int64 {
        let text = request.parameters["id"] ?? ""
        guard let id = Int64(text), id > 0 else { throw EntityError.notFound(entity: "job", id: text) }
        return id
    }
}
