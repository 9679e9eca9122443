/// The first statement of a pipeline that failed: its error and its place
/// in the list sent. The statements after it did not run (PostgreSQL skips
/// them up to the pipeline's sync), so the caller knows whose error it is.
/// `completed` holds the results of the statements before it.
struct PostgresPipelineFailure: Error {
    let error: PostgresError
    let index: Int
    var completed: [PostgresResult] = []
}
