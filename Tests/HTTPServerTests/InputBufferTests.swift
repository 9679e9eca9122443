import Testing
@testable import HTTPServer

@Suite struct InputBufferTests {
    @Test func aGrownBufferShrinksOnceEmptyAndNotBefore() {
        let buffer = InputBuffer(capacity: 4096)
        for _ in 0..<8 {
            let space = buffer.writableSpace(minimum: 16 * 1024)
            buffer.didWrite(min(space.count, 16 * 1024))
        }
        #expect(buffer.capacity >= 128 * 1024)
        buffer.consume(buffer.readableCount - 1)
        buffer.shrinkIfEmpty()
        #expect(buffer.capacity >= 128 * 1024)  // one byte unread: kept
        buffer.consume(1)
        buffer.shrinkIfEmpty()
        #expect(buffer.capacity == 4096)
        let space = buffer.writableSpace(minimum: 100)
        #expect(space.count == 4096)
    }
}
