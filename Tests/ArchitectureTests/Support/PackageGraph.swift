import Foundation

/// The target graph of a package, from `swift package dump-package`.
struct PackageGraph {
    struct Target {
        let name: String
        let type: String
        let dependencies: [String]
        let directory: String
        let excluded: [String]
    }

    let root: URL
    let targets: [Target]

    /// Reads the graph of the package at `root`. The dump uses a scratch
    /// directory of its own so that it never waits for the lock of a build
    /// that is running the tests.
    static func load(_ root: URL) async throws -> PackageGraph {
        let work = FileManager.default.temporaryDirectory
            .appendingPathComponent("axiom-dump-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let result = try await Shell.swift(
            ["package", "--scratch-path", work.appendingPathComponent("scratch").path, "dump-package"],
            in: root, temporaryDirectory: work.appendingPathComponent("tmp"))
        guard result.status == 0, let start = result.output.firstIndex(of: "{") else {
            throw ShellError.failed(result.output)
        }
        let json = Data(result.output[start...].utf8)
        let manifest = try JSONDecoder().decode(Manifest.self, from: json)
        return PackageGraph(root: root, targets: manifest.targets.map { target in
            let defaultParent = target.type == "test" ? "Tests" : "Sources"
            return Target(name: target.name, type: target.type,
                          dependencies: target.dependencies.compactMap(\.targetName),
                          directory: target.path ?? "\(defaultParent)/\(target.name)",
                          excluded: target.exclude)
        })
    }

    func target(named name: String) -> Target? { targets.first { $0.name == name } }

    // The subset of the dump-package JSON this check reads.
    private struct Manifest: Decodable {
        let targets: [ManifestTarget]
    }

    private struct ManifestTarget: Decodable {
        let name: String
        let type: String
        let path: String?
        let exclude: [String]
        let dependencies: [Dependency]
    }

    /// `{"byName": ["X", null]}`, `{"target": ["X", null]}` or
    /// `{"product": ["X", "package", …]}`; products are not package targets.
    private struct Dependency: Decodable {
        let targetName: String?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            if let byName = try? container.decode([String?].self, forKey: .byName) {
                targetName = byName.first ?? nil
            } else if let target = try? container.decode([String?].self, forKey: .target) {
                targetName = target.first ?? nil
            } else {
                targetName = nil
            }
        }

        enum Key: String, CodingKey {
            case byName, target
        }
    }
}
