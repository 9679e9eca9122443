import Foundation
import Testing
import TestSupport

/// The fleet's monitoring (config/prometheus/axiom-rules.yml and
/// config/grafana/axiom-dashboard.json) reads series this server exposes:
/// a renamed metric must fail here, not leave a panel blank and an alert
/// that can never fire. promtool checks the rules' syntax and alerts
/// (scripts/test.sh); this checks the names against the real binary.
@Suite struct FleetMonitoringTests {
    typealias API = AccountFlowTests.API

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every `axiom_…` / `process_…` name in `text`, without the suffixes a
    /// histogram's series carry.
    static func metricNames(in text: String) -> Set<String> {
        let pattern = try! Regex(#"\b(axiom|process)_[a-z_]+"#)
        var names = Set<String>()
        for match in text.matches(of: pattern) {
            var name = String(text[match.range])
            for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
                name.removeLast(suffix.count)
            }
            names.insert(name)
        }
        return names
    }

    /// The families `/metrics` declares (`# TYPE name kind`).
    static func exposedFamilies(_ exposition: String) -> Set<String> {
        Set(exposition.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("# TYPE ") else { return nil }
            return line.split(separator: " ").dropFirst(2).first.map(String.init)
        })
    }

    @Test func everyMetricTheRulesAndTheDashboardReadIsExposed() throws {
        try ServerProcess.run(arguments: ["--port", "0"]) { server, api in
            _ = try api.call("GET", "/health")
            let exposed = Self.exposedFamilies(try api.call("GET", "/metrics").text)
            #expect(exposed.contains("axiom_http_requests_total"))

            let rules = try String(contentsOf: Self.root.appendingPathComponent("config/prometheus/axiom-rules.yml"),
                                   encoding: .utf8)
            let dashboard = try String(contentsOf: Self.root.appendingPathComponent("config/grafana/axiom-dashboard.json"),
                                       encoding: .utf8)
            // Recording rules' own names (`job:axiom_…:rate1m`) are not
            // exposed; they are defined by the rules file, so they are taken out
            // before the names are read.
            var expressions = rules
            for line in rules.split(separator: "\n") {
                let trimmed = line.drop { $0 == " " }
                if trimmed.hasPrefix("- record: ") {
                    expressions = expressions.replacingOccurrences(of: String(trimmed.dropFirst("- record: ".count)), with: "")
                }
            }
            let read = Self.metricNames(in: expressions).union(Self.metricNames(in: dashboard))
            #expect(read.count > 10)
            #expect(read.subtracting(exposed).isEmpty, "read by the rules or the dashboard, not exposed: \(read.subtracting(exposed).sorted())")
        }
    }

    @Test func theDashboardIsGrafanaJSONWhosePanelsEachQuerySomething() throws {
        let data = try Data(contentsOf: Self.root.appendingPathComponent("config/grafana/axiom-dashboard.json"))
        let dashboard = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(dashboard["uid"] as? String == "axiom-server")
        let panels = try #require(dashboard["panels"] as? [[String: Any]])
        let graphs = panels.filter { $0["type"] as? String != "row" }
        #expect(graphs.count >= 12)
        for panel in graphs {
            let targets = panel["targets"] as? [[String: Any]] ?? []
            #expect(!targets.isEmpty, "panel \(panel["title"] ?? "?") queries nothing")
            #expect(targets.allSatisfy { ($0["expr"] as? String)?.isEmpty == false })
        }
    }
}
