import Axiom
import Domain

/// The `account.erase` job: a deleted account's erasure in the other
/// clients, queued in the commit that deleted it and due a minute later.
/// The deletion request erases at once; this repeats it, so a process
/// killed between the deletion's commit and the erasure still leaves
/// nothing behind once any process runs the job.
public struct AccountErasureWork: JobWork {
    public static var kinds: [JobKind] { [AccountErasure.kind] }

    private let steps: AccountErasureSteps

    public init(_ creation: ContextCreation) throws {
        steps = try AccountErasureSteps(creation)
    }

    public func run(_ job: Job) async throws {
        let erasure = try JobPayload.decode(job) { try AccountErasure(payload: $0.payload) }
        try await steps.erase(erasure.userID)
    }
}
