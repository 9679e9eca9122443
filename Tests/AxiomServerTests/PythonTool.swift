import Foundation

/// Runs a short Python 3 program with `input` on stdin and returns its
/// stdout: the tests check /metrics with `prometheus_client`'s own parser and
/// compute SHA-256 with `hashlib`, independent of the server's code.
enum PythonTool {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func run(_ program: String, input: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", program]
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "python3 failed: \(String(decoding: errors, as: UTF8.self))")
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Parses a Prometheus exposition with `prometheus_client.parser`
    /// (raising on anything malformed) and returns every sample as
    /// `name{label="value",…}` (labels sorted) → value, plus the family types.
    static func parsePrometheus(_ text: String) throws -> (samples: [String: Double], types: [String: String]) {
        let program = """
            import sys, json
            from prometheus_client.parser import text_string_to_metric_families
            samples, types = {}, {}
            for family in text_string_to_metric_families(sys.stdin.read()):
                types[family.name] = family.type
                for s in family.samples:
                    labels = ",".join(f'{k}="{v}"' for k, v in sorted(s.labels.items()))
                    samples[f"{s.name}{{{labels}}}"] = s.value
            print(json.dumps({"samples": samples, "types": types}))
            """
        let output = try run(program, input: text)
        let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
        return ((object?["samples"] as? [String: Double]) ?? [:], (object?["types"] as? [String: String]) ?? [:])
    }

    static func sha256Hex(_ text: String) throws -> String {
        try run("import sys, hashlib; print(hashlib.sha256(sys.stdin.read().encode()).hexdigest())", input: text)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
