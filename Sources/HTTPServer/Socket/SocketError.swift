import Glibc

/// A failed system call, with its errno and what we were doing.
public struct SocketError: Error, CustomStringConvertible, Sendable {
    public let operation: String
    public let errnoValue: Int32

    init(_ operation: String, errno errnoValue: Int32 = errno) {
        self.operation = operation
        self.errnoValue = errnoValue
    }

    public var description: String {
        "\(operation) failed: \(String(cString: strerror(errnoValue))) (errno \(errnoValue))"
    }
}

/// Repeats a system call interrupted by a signal (EINTR).
@inline(__always)
func retryingOnInterrupt<T: BinaryInteger>(_ call: () -> T) -> T {
    while true {
        let result = call()
        if result >= 0 || errno != EINTR { return result }
    }
}
