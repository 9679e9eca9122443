import Domain
import Formats

/// Job bodies of the admin API: `{"id", "kind", "state", "unique_key",
/// "attempts", "max_attempts", "sensitive", "run_at", "lease_owner",
/// "lease_until", "last_error", "created_at", "finished_at", "payload"}`,
/// times in RFC 3339, the payload the JSON object the job was enqueued
/// with (null for a sensitive kind: it holds a secret).
enum JobJSON {
    /// The payload, stored as the enqueuing write made it, goes in as its
    /// bytes (checked to be strict JSON first, else null), after the rest.
    static func bytes(_ job: JobRecord) -> [UInt8] {
        var json = JSONBytes(capacity: 512)
        writeFields(job, to: &json)
        var bytes = json.bytes
        if let payload = job.payload, case .valid = JSONSyntax.check(payload) {
            bytes += payload
        } else {
            bytes += Array("null".utf8)
        }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// `{"items":[…],"next_cursor":…}`, as every keyset page.
    static func page(_ page: Page<JobRecord>) -> [UInt8] {
        var bytes = Array("{\"items\":[".utf8)
        for (index, job) in page.items.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += Self.bytes(job)
        }
        var cursor = JSONBytes(capacity: 64)
        cursor.raw("],\"next_cursor\":")
        if let next = page.nextCursor { cursor.string(next) } else { cursor.raw("null") }
        cursor.raw("}")
        return bytes + cursor.bytes
    }

    private static func writeFields(_ job: JobRecord, to json: inout JSONBytes) {
        json.raw("{\"id\":")
        json.integer(job.id)
        json.raw(",\"kind\":")
        json.string(job.kind)
        json.raw(",\"state\":")
        json.rawString(job.state.rawValue)
        json.raw(",\"unique_key\":")
        optional(job.uniqueKey, &json)
        json.raw(",\"attempts\":")
        json.integer(job.attempts)
        json.raw(",\"max_attempts\":")
        json.integer(job.maxAttempts)
        json.raw(",\"sensitive\":")
        if job.sensitive { json.raw("true") } else { json.raw("false") }
        json.raw(",\"run_at\":")
        time(job.runAt, &json)
        json.raw(",\"lease_owner\":")
        optional(job.leaseOwner, &json)
        json.raw(",\"lease_until\":")
        time(job.leaseUntil, &json)
        json.raw(",\"last_error\":")
        optional(job.lastError, &json)
        json.raw(",\"created_at\":")
        time(job.createdAt, &json)
        json.raw(",\"finished_at\":")
        time(job.finishedAt, &json)
        json.raw(",\"payload\":")
    }

    private static func optional(_ text: String?, _ json: inout JSONBytes) {
        if let text { json.string(text) } else { json.raw("null") }
    }

    private static func time(_ milliseconds: Int64?, _ json: inout JSONBytes) {
        if let milliseconds { json.rawString(Timestamp(millisecondsSince1970: milliseconds).rfc3339) } else { json.raw("null") }
    }
}
