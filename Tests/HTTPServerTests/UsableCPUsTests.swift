import Foundation
import Testing
@testable import HTTPServer

/// The cgroup quota read from a fake cgroup file tree in a temporary
/// directory (no root needed); the affinity mask is tested on the real
/// binary under `taskset` (AxiomServerTests.UsableCPUsProcessTests).
@Suite struct UsableCPUsTests {
    /// A cgroup mount in a temporary directory and the process's
    /// `/proc/self/cgroup` beside it.
    struct FakeCgroups {
        let root: URL
        var membership: String { root.appendingPathComponent("self-cgroup").path }

        init(membership lines: String) throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("cgroups-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            try write(lines, to: "self-cgroup")
        }

        func write(_ text: String, to path: String) throws {
            let file = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(),
                                                    withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }

        var quota: Int? { UsableCPUs.quota(cgroupRoot: root.path, membership: membership) }
        var detected: UsableCPUs { UsableCPUs.detect(cgroupRoot: root.path, membership: membership) }

        func remove() { try? FileManager.default.removeItem(at: root) }
    }

    @Test func aQuotaOfOneAndAHalfCPUsRoundsUpToTwo() throws {
        let cgroups = try FakeCgroups(membership: "0::/\n")
        defer { cgroups.remove() }
        try cgroups.write("150000 100000\n", to: "cpu.max")
        #expect(cgroups.quota == 2)
        let detected = cgroups.detected
        #expect(detected.quota == 2)
        #expect(detected.count == min(detected.affinity, 2))
    }

    @Test func maxMeansNoLimit() throws {
        let cgroups = try FakeCgroups(membership: "0::/\n")
        defer { cgroups.remove() }
        try cgroups.write("max 100000\n", to: "cpu.max")
        #expect(cgroups.quota == nil)
        #expect(cgroups.detected.count == cgroups.detected.affinity)
    }

    @Test func aParentsQuotaBindsItsChild() throws {
        let cgroups = try FakeCgroups(membership: "0::/service/worker\n")
        defer { cgroups.remove() }
        try cgroups.write("max 100000\n", to: "service/worker/cpu.max")
        try cgroups.write("300000 100000\n", to: "service/cpu.max")
        #expect(cgroups.quota == 3)
        try cgroups.write("50000 100000\n", to: "service/worker/cpu.max")
        #expect(cgroups.quota == 1)
    }

    @Test func aQuotaBelowOneCPUStillGivesOne() throws {
        let cgroups = try FakeCgroups(membership: "0::/\n")
        defer { cgroups.remove() }
        try cgroups.write("10000 100000\n", to: "cpu.max")
        #expect(cgroups.quota == 1)
        #expect(cgroups.detected.count == 1)
    }

    @Test func theUnifiedHierarchyOfAHybridHost() throws {
        let cgroups = try FakeCgroups(membership: "1:cpu:/\n0::/app\n")
        defer { cgroups.remove() }
        try cgroups.write("-1\n", to: "cpu/cpu.cfs_quota_us")
        try cgroups.write("100000\n", to: "cpu/cpu.cfs_period_us")
        try cgroups.write("250000 100000\n", to: "unified/app/cpu.max")
        #expect(cgroups.quota == 3)
    }

    @Test func version1QuotaOverPeriod() throws {
        let cgroups = try FakeCgroups(membership: "4:memory:/a\n3:cpu,cpuacct:/docker/abc\n")
        defer { cgroups.remove() }
        try cgroups.write("150000\n", to: "cpu,cpuacct/docker/abc/cpu.cfs_quota_us")
        try cgroups.write("100000\n", to: "cpu,cpuacct/docker/abc/cpu.cfs_period_us")
        #expect(cgroups.quota == 2)
    }

    @Test func version1MinusOneMeansNoLimit() throws {
        let cgroups = try FakeCgroups(membership: "3:cpu,cpuacct:/\n")
        defer { cgroups.remove() }
        try cgroups.write("-1\n", to: "cpu,cpuacct/cpu.cfs_quota_us")
        try cgroups.write("100000\n", to: "cpu,cpuacct/cpu.cfs_period_us")
        #expect(cgroups.quota == nil)
    }

    /// Inside a container without a cgroup namespace, `/proc/self/cgroup`
    /// names the host's path while the container's own cgroup is mounted at
    /// the root.
    @Test func version1HostPathFallsBackToTheMountRoot() throws {
        let cgroups = try FakeCgroups(membership: "3:cpu,cpuacct:/docker/0123abcd\n")
        defer { cgroups.remove() }
        try cgroups.write("200000\n", to: "cpu,cpuacct/cpu.cfs_quota_us")
        try cgroups.write("100000\n", to: "cpu,cpuacct/cpu.cfs_period_us")
        #expect(cgroups.quota == 2)
    }

    @Test func noCgroupFilesMeanNoLimit() throws {
        let cgroups = try FakeCgroups(membership: "0::/\n3:cpu,cpuacct:/\n")
        defer { cgroups.remove() }
        #expect(cgroups.quota == nil)
        #expect(UsableCPUs.quota(cgroupRoot: cgroups.root.path, membership: "/nonexistent/cgroup") == nil)
    }
}
