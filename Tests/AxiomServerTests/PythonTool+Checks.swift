import Foundation
import TestSupport

extension PythonTool {
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
