import CSystemShims
import Glibc

/// How many CPUs this process may keep busy: the CPUs of its affinity mask
/// (`taskset`, a container's cpuset), capped by its cgroup's CPU quota
/// (v2 `cpu.max`, v1 `cpu.cfs_quota_us` over `cpu.cfs_period_us`; a
/// fractional quota rounds up), at least 1. Pools sized by CPU count use
/// this, not the host's online CPUs: `docker run --cpus=2` on a 32-core host
/// would otherwise start 32 event loops to share 2 CPUs' worth of time.
public struct UsableCPUs: Sendable, Equatable {
    /// CPUs in the affinity mask of the thread that looked.
    public let affinity: Int
    /// The tightest quota on the process's cgroup or its ancestors, in CPUs
    /// rounded up; nil when there is none.
    public let quota: Int?

    public var count: Int { max(1, min(affinity, quota ?? affinity)) }

    /// This process's, read once (at start-up, on the thread that first asks).
    public static let current = UsableCPUs.detect()

    /// Reads the affinity mask of the calling thread and the quota of the
    /// cgroups named in `membership` (`/proc/self/cgroup`), found under
    /// `cgroupRoot`.
    public static func detect(cgroupRoot: String = "/sys/fs/cgroup",
                              membership: String = "/proc/self/cgroup") -> UsableCPUs {
        let mask = Int(axiom_affinity_cpu_count())
        let affinity = mask > 0 ? mask : max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        return UsableCPUs(affinity: affinity, quota: quota(cgroupRoot: cgroupRoot, membership: membership))
    }

    /// The smallest quota along each listed cgroup's path up to the
    /// hierarchy's root: a parent's limit binds its children. The path is
    /// also tried from the root alone, since inside a container without a
    /// cgroup namespace `/proc/self/cgroup` names the host's path while the
    /// container sees its own cgroup at the mount point.
    static func quota(cgroupRoot: String, membership: String) -> Int? {
        guard let lines = readFile(membership) else { return nil }
        var tightest: Int?
        for line in lines.split(separator: "\n") {
            // hierarchy-id:controllers:path
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let controllers = fields[1]
            let bases: [String]
            let read: (String) -> Int?
            if fields[0] == "0" && controllers.isEmpty {
                // v2: the unified hierarchy at the root, or at root/unified on a hybrid host.
                bases = [cgroupRoot, cgroupRoot + "/unified"]
                read = quotaV2(in:)
            } else if controllers.split(separator: ",").contains("cpu") {
                bases = [cgroupRoot + "/" + controllers, cgroupRoot + "/cpu"]
                read = quotaV1(in:)
            } else {
                continue
            }
            for base in bases {
                for directory in ancestors(of: String(fields[2]), under: base) {
                    if let limit = read(directory) { tightest = min(tightest ?? limit, limit) }
                }
            }
        }
        return tightest
    }

    /// `base/a/b`, `base/a`, `base` for the path `/a/b`.
    private static func ancestors(of path: String, under base: String) -> [String] {
        var parts = path.split(separator: "/").map(String.init)
        var directories: [String] = []
        while !parts.isEmpty {
            directories.append(base + "/" + parts.joined(separator: "/"))
            parts.removeLast()
        }
        directories.append(base)
        return directories
    }

    /// `cpu.max`: "$MAX $PERIOD", where `max` means no limit.
    private static func quotaV2(in directory: String) -> Int? {
        guard let text = readFile(directory + "/cpu.max") else { return nil }
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count == 2, let quota = Int(fields[0]), let period = Int(fields[1]) else { return nil }
        return cpus(quota: quota, period: period)
    }

    /// `cpu.cfs_quota_us` (-1 means no limit) over `cpu.cfs_period_us`.
    private static func quotaV1(in directory: String) -> Int? {
        guard let quotaText = readFile(directory + "/cpu.cfs_quota_us"),
              let periodText = readFile(directory + "/cpu.cfs_period_us"),
              let quota = Int(quotaText.filter { $0 != "\n" }),
              let period = Int(periodText.filter { $0 != "\n" }) else { return nil }
        return cpus(quota: quota, period: period)
    }

    private static func cpus(quota: Int, period: Int) -> Int? {
        guard quota > 0, period > 0 else { return nil }
        return max(1, (quota + period - 1) / period)
    }

    /// A small file's text (cgroup and proc files are a line or a few).
    private static func readFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
