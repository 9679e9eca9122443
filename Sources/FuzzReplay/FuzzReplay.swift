#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Replay mode shared by the fuzz targets: in a normal build (no
/// `--sanitize=fuzzer`) a target's top-level code runs the files named on
/// the command line through its check, to reproduce a crash file without
/// the sanitizer. One copy here instead of one per target.
public enum FuzzReplay {
    /// Runs `check` over each file named in `arguments` (flags skipped) and
    /// returns how many it replayed; exits 2 on an unreadable file.
    public static func run(_ arguments: some Sequence<String>, check: (UnsafeRawBufferPointer) -> Void) -> Int {
        let paths = arguments.filter { !$0.hasPrefix("-") }
        for path in paths {
            guard let bytes = readFile(path) else {
                print("cannot read \(path)")
                exit(2)
            }
            bytes.withUnsafeBytes(check)
        }
        print("replayed \(paths.count) input(s) without a failure")
        return paths.count
    }

    static func readFile(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        return bytes
    }
}
