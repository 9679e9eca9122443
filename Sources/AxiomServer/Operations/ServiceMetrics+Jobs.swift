import Contexts
import Domain

extension ServiceMetrics {
    /// The job queue per kind: what waits, runs and died, read from the
    /// `jobs` table at scrape time (one query, the same on every replica:
    /// a fleet's rules take it from any one), and what this process ran,
    /// as counters (summed across replicas). Every kind this process runs
    /// has its series, zero or not.
    func writeJobs(to text: inout PrometheusText) async {
        let runner = jobRunner
        let statistics = (try? await runner.queueStatistics()) ?? []
        var byKind = Dictionary(uniqueKeysWithValues: statistics.map { ($0.kind, $0) })
        for kind in runner.runnableKinds where byKind[kind.name] == nil {
            byKind[kind.name] = JobKindStatistics(kind: kind.name)
        }
        let kinds = byKind.keys.sorted()
        text.family("axiom_jobs", "gauge", "Jobs in the queue now, by kind and state (queued, running, dead).")
        for kind in kinds {
            let entry = byKind[kind]!
            text.sample("axiom_jobs", [("kind", kind), ("state", "queued")], entry.queued)
            text.sample("axiom_jobs", [("kind", kind), ("state", "running")], entry.running)
            text.sample("axiom_jobs", [("kind", kind), ("state", "dead")], entry.dead)
        }
        text.family("axiom_jobs_oldest_due_age_seconds", "gauge",
                    "How long the oldest due job of a kind has waited past its run_at (0: none is due).")
        for kind in kinds {
            text.sample("axiom_jobs_oldest_due_age_seconds", [("kind", kind)],
                        Double(byKind[kind]!.oldestDueAgeMilliseconds) / 1000)
        }
        let outcomes = runner.outcomes
        text.family("axiom_jobs_finished_total", "counter",
                    "Job attempts this process finished, by kind and outcome (succeeded, failed: retried or dead).")
        for kind in kinds {
            let counts = outcomes[kind] ?? .init()
            text.sample("axiom_jobs_finished_total", [("kind", kind), ("outcome", "succeeded")], counts.succeeded)
            text.sample("axiom_jobs_finished_total", [("kind", kind), ("outcome", "failed")], counts.failedAttempts)
        }
        text.family("axiom_jobs_died_total", "counter", "Jobs this process marked dead, by kind.")
        for kind in kinds {
            text.sample("axiom_jobs_died_total", [("kind", kind)], outcomes[kind]?.died ?? 0)
        }
    }
}
