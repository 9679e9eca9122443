extension PostgresGroupCommitWriter {
    /// Statements left waiting by earlier requests that go out before the
    /// next request starts: libpq's blocking mode writes a whole pipeline
    /// before reading, which is safe only while the server's answers to it
    /// fit the sockets' buffers.
    static let maxWaiting = 64

    /// One try at `batch` with no savepoint per request: most batches fail
    /// nowhere, and each savepoint costs PostgreSQL a subtransaction. The
    /// statements a request enqueued wait for the next statement whose
    /// result any later request reads, or for the end of the batch, where
    /// the outbox rows follow them in the same pipeline: a batch costs one
    /// round trip per statement read, plus one, plus its COMMIT unless the
    /// COMMIT could go with them (no outbox rows, and the transaction's id
    /// known before, as a lost COMMIT is looked up by it: `settleLostCommit`).
    ///
    /// A failure that is the batch's (a lost connection, a serialization
    /// failure or deadlock) ends it as `attempt` would. A request's own
    /// failure (its closure threw, or one of the batch's statements failed,
    /// which cannot be told apart here) rolls the whole transaction back:
    /// a request alone in its batch fails then (or waits for the next batch
    /// after a lock wait), as it would have with a savepoint; beside others
    /// the batch runs again with savepoints, which keep the failure to its
    /// request.
    func attemptWithoutSavepoints(_ batch: [Request]) -> Attempt {
        let connection: PostgresConnection
        do {
            connection = try connected()
        } catch {
            return lost(error)
        }
        var waiting = ["BEGIN", "SELECT pg_current_xact_id()::text AS xid"].map { PostgresStatement($0) }
        var xid: String?
        var acknowledged: [Delivery] = []
        var records: [ChangeRecord] = []
        for (index, request) in batch.enumerated() {
            let handle = PostgresHandle(connection: connection, defers: true, opening: waiting)
            let outcome = Result { try request.perform(handle) }
            handle.invalidate()
            waiting = handle.takeWaiting()
            xid = xid ?? Self.transactionID(handle.opened)
            let statementError = handle.batchError ?? handle.failedStatement
            if let error = statementError, index == 0, handle.openingFailed, !connection.isHealthy {
                // The server closed the connection while it sat idle:
                // nothing of the batch ran, so it runs again on a fresh one.
                self.connection = nil
                return .retry(error)
            }
            switch (outcome, statementError) {
            case (.success(let deliver), nil):
                acknowledged.append(Delivery(deliver: deliver, recordCount: handle.recorded.count))
                records += handle.recorded
                if waiting.count >= Self.maxWaiting {
                    do throws(PostgresPipelineFailure) {
                        let results = try connection.pipeline(waiting)
                        xid = xid ?? Self.transactionID(results)
                        waiting = []
                    } catch {
                        return failedWithoutSavepoints(batch, error: error.error, failure: StorageError.postgres(error.error),
                                                       connection)
                    }
                }
            case (.success, let error?):
                // The closure caught a statement's error and carried on.
                return failedWithoutSavepoints(batch, error: error, failure: StorageError.postgres(error), connection)
            case (.failure(let thrown), let error):
                return failedWithoutSavepoints(batch, error: error, failure: thrown, connection)
            }
        }
        // What is still waiting goes now, with the outbox rows after it, or
        // with COMMIT when there are none and the transaction's id is known.
        let outbox = records.isEmpty ? [] : [PostgresStatement(
            ChangeOutbox.postgresInsert, ChangeOutbox.postgresInsertArguments(records, origin: configuration.changeOrigin))]
        let commitsNow = records.isEmpty && xid != nil
        let sent = waiting + outbox + (commitsNow ? [PostgresStatement("COMMIT")] : [])
        if !sent.isEmpty {
            let started = ContinuousClock().now
            do throws(PostgresPipelineFailure) {
                let results = try connection.pipeline(sent)
                xid = xid ?? Self.transactionID(results)
                if !outbox.isEmpty, let placed = results.last {
                    Self.hand(placed.rows.compactMap { try? $0.get("position") as Int64 }, to: &acknowledged)
                }
            } catch {
                // A broken connection's error cannot be pinned to one
                // statement: with COMMIT sent, its fate is looked up.
                let broken = !connection.isHealthy || error.error.meansUnavailable
                if broken || error.error.isRetryable || error.index >= waiting.count {
                    if let unsettled = settleLostCommit(commitsNow ? xid : nil, connection, error.error) { return unsettled }
                } else {
                    return failedWithoutSavepoints(batch, error: error.error, failure: StorageError.postgres(error.error),
                                                   connection)
                }
            }
            if commitsNow {
                health.updateMetrics { $0.commitLatency.record((ContinuousClock().now - started).inSeconds) }
                return .committed(acknowledged: acknowledged, failed: [], deferred: [])
            }
        }
        if let unsettled = commitAlone(connection, xid: xid, notifying: !records.isEmpty) { return unsettled }
        return .committed(acknowledged: acknowledged, failed: [], deferred: [])
    }

    /// After a failure in a batch without savepoints: `error` (a failed
    /// statement, nil when a closure threw) ends the batch when it is the
    /// batch's; else the transaction is rolled back, and a request alone in
    /// its batch fails with `failure` (or is put into the next batch after a
    /// lock wait), while a batch of several runs again with savepoints.
    private func failedWithoutSavepoints(_ batch: [Request], error: PostgresError?, failure: any Error,
                                         _ connection: PostgresConnection) -> Attempt {
        if let error, !connection.isHealthy || error.meansUnavailable || error.isRetryable {
            return abandon(connection, error)
        }
        try? connection.exec("ROLLBACK")
        guard connection.isHealthy else { return lost(failure) }
        guard batch.count == 1, let request = batch.first else { return .withSavepoints }
        if let error, error.isLockTimeout {
            var again = request
            again.deferrals += 1
            if again.deferrals <= Self.maxDeferrals { return .committed(acknowledged: [], failed: [], deferred: [again]) }
        }
        return .committed(acknowledged: [], failed: [(request, failure)], deferred: [])
    }
}
