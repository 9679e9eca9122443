/// The sizes the parser refuses to exceed, each mapped to its status:
/// request line → 414, header section (bytes or fields) → 431, body → 413.
public struct ParserLimits: Sendable, Equatable {
    public var maxRequestLineBytes: Int
    public var maxHeaderBytes: Int
    public var maxHeaderCount: Int
    public var maxBodyBytes: Int

    public init(maxRequestLineBytes: Int = 8 * 1024, maxHeaderBytes: Int = 16 * 1024,
                maxHeaderCount: Int = 100, maxBodyBytes: Int = 1024 * 1024) {
        self.maxRequestLineBytes = maxRequestLineBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxBodyBytes = maxBodyBytes
    }

    /// A chunk-size line with extensions longer than this is refused (400):
    /// extensions carry nothing we use, and unbounded ones are a memory lever.
    static let maxChunkLineBytes = 1024
}
