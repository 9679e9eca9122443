#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The (device, inode) pair of a file: tells whether the path still names
/// the very file a connection opened.
///
/// SQLite keeps writing through its open descriptors when the database file
/// or its directory is deleted or renamed, so such writes would "succeed"
/// into an unlinked inode and be lost. The writer compares identities before
/// every batch and reports the storage unavailable instead.
struct FileIdentity: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64

    static func of(path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
}
