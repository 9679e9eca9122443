import CLibPQ

extension PostgresConnection {
    /// Runs `statements` in order in one round trip (libpq's pipeline mode:
    /// all sent, one sync, then the results read in order) and returns
    /// their results. The first failure is thrown with its index; the
    /// statements after it did not run. Inside the writer's transaction a
    /// failure leaves it aborted, as a failed `run` does: the caller rolls
    /// back to its savepoint.
    ///
    /// A statement not yet prepared is prepared in the same pipeline, just
    /// before it runs.
    func pipeline(_ statements: [PostgresStatement]) throws(PostgresPipelineFailure) -> [PostgresResult] {
        dropUnreadAnswer()
        roundTrips += 1
        guard PQenterPipelineMode(connection) == 1 else {
            throw PostgresPipelineFailure(error: lostError(sql: statements.first?.sql), index: 0)
        }
        // What was sent, in order: a statement, or the preparation of one.
        var sent: [(statement: Int, prepares: String?)] = []
        var newlyPrepared: [String] = []
        for (index, statement) in statements.enumerated() {
            let parameters = PostgresParameters(statement.arguments)
            defer { parameters.release() }
            let count = Int32(statement.arguments.count)
            var accepted: Int32
            if let name = prepared[statement.sql] {
                accepted = parameters.withArrays { PQsendQueryPrepared(connection, name, count, $0, $1, $2, 0) }
            } else if prepared.count < statementCacheCapacity {
                let name = "axiom_\(prepared.count)"
                accepted = PQsendPrepare(connection, name, statement.sql, count, nil)
                if accepted == 1 {
                    prepared[statement.sql] = name
                    newlyPrepared.append(statement.sql)
                    sent.append((index, statement.sql))
                    accepted = parameters.withArrays { PQsendQueryPrepared(connection, name, count, $0, $1, $2, 0) }
                }
            } else {
                accepted = parameters.withArrays { PQsendQueryParams(connection, statement.sql, count, nil, $0, $1, $2, 0) }
            }
            guard accepted == 1 else {
                forget(newlyPrepared)
                throw abandonPipeline(sql: statement.sql, index: index)
            }
            sent.append((index, nil))
        }
        guard PQpipelineSync(connection) == 1 else {
            forget(newlyPrepared)
            throw abandonPipeline(sql: statements.first?.sql, index: 0)
        }
        var results: [PostgresResult] = []
        var failure: PostgresPipelineFailure?
        for (index, prepares) in sent {
            let sql = statements[index].sql
            guard let result = PQgetResult(connection) else {
                forget(newlyPrepared)
                throw abandonPipeline(sql: sql, index: index, completed: results)
            }
            // Each command's results end with a null.
            if let unexpected = PQgetResult(connection) {
                PQclear(unexpected)
                throw abandonPipeline(sql: sql, index: index, completed: results)
            }
            if PQresultStatus(result) == PGRES_PIPELINE_ABORTED {
                PQclear(result)
                if let prepares { prepared[prepares] = nil }
                continue
            }
            do {
                let checked = try check(result, sql: sql)
                if prepares == nil { results.append(checked) }
            } catch {
                if let prepares { prepared[prepares] = nil }
                if failure == nil { failure = PostgresPipelineFailure(error: error, index: index, completed: results) }
            }
        }
        let sync = PQgetResult(connection)
        let synced = sync.map { PQresultStatus($0) == PGRES_PIPELINE_SYNC } ?? false
        if let sync { PQclear(sync) }
        guard synced, PQexitPipelineMode(connection) == 1 else {
            // A connection that broke answers the statement it broke on with
            // an error first: that statement is where it failed.
            let index = failure?.index ?? statements.count - 1
            throw abandonPipeline(sql: failure?.error.sql ?? statements.last?.sql, index: index, completed: results)
        }
        if let failure { throw failure }
        return results
    }

    /// Statements whose preparation never reached the server are prepared
    /// again next time.
    private func forget(_ statements: [String]) {
        for sql in statements { prepared[sql] = nil }
    }

    /// A pipeline that could not be sent or read to its sync leaves the
    /// connection out of step with the server: it is dropped (`isHealthy`)
    /// and the whole batch fails as on a lost connection.
    private func abandonPipeline(sql: String?, index: Int, completed: [PostgresResult] = []) -> PostgresPipelineFailure {
        isBroken = true
        return PostgresPipelineFailure(error: lostError(sql: sql), index: index, completed: completed)
    }

    private func lostError(sql: String?) -> PostgresError {
        PostgresError(sqlState: PostgresError.connectionLost, message: Self.message(connection), sql: sql)
    }
}
