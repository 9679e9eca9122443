import Axiom
import Domain
import JobClient

/// Deletes finished jobs (succeeded, dead, discarded) older than the
/// retention (`jobs_retention`), hourly, on one replica at a time.
public struct JobPruneWork: JobWork {
    public static let prune = JobKind("jobs.prune", every: .seconds(3600))
    public static let kinds = [prune]

    let jobs: ClientHandle<JobClient>

    public init(_ creation: ContextCreation) throws {
        jobs = try creation.client(JobClient.self)
    }

    public func run(_ job: Job) async throws {
        _ = try await jobs.call { try await $0.pruneFinished() }
    }
}
