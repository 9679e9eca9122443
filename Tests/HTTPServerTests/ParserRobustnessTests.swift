import Testing
import TestSupport
@_spi(Fuzzing) @testable import HTTPServer
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// A seeded random-input robustness test of the request parser: valid
// requests are mutated (byte flips, insertions, deletions, duplication,
// splicing in the shapes the parser must refuse, truncation) and fed whole
// and at random split points. For every input the parser must not trap, must
// either yield events or throw an HTTPParseError with status 400, 413, 414,
// 431, 501 or 505, must keep the invariants ParserFuzzing checks, and must
// behave the same however the bytes arrive.
//
// Deterministic: a fixed seed and a fixed number of iterations (20,000).
//   AXIOM_FUZZ_SEED=<n>       another seed (printed on failure)
//   AXIOM_FUZZ_SECONDS=<n>    keep going for n seconds instead (the duration
//                             only decides how many inputs are tried)

enum Corpus {
    /// Valid requests the mutations start from.
    static let requests: [String] = [
        "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n",
        "GET /users/42?x=1&y=a+b HTTP/1.1\r\nHost: h\r\nAccept: */*\r\nAccept: text/html\r\nUser-Agent: t\r\n\r\n",
        "POST /submit HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\nContent-Type: text/plain\r\n\r\nhello world",
        "PUT /up HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n",
        "GET http://example.com:8080/a%2Fb/c%20d?q=%E2%9C%93 HTTP/1.1\r\nHost: example.com\r\n\r\n",
        "GET /old HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        "\r\nOPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n",
        "POST /e HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\nabc",
        "DELETE /x/%41 HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
        "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n",
    ]

    /// Fragments that make a request invalid (or valid in an unusual way),
    /// spliced into mutated inputs.
    static let shapes: [String] = [
        "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", "Content-Length: 5\r\nContent-Length: 6\r\n",
        "Content-Length: 5, 5\r\n", "Content-Length: 5a\r\n", "Content-Length: 99999999999999999999\r\n",
        "Content-Length: 2000000\r\n", "Transfer-Encoding: chunked, gzip\r\n", "Transfer-Encoding: gzip, chunked\r\n",
        "Transfer-Encoding: chunked\r\n", "X-Fold: a\r\n b\r\n", "Host : h\r\n", "X(Y): z\r\n", "X: a\0b\r\n",
        "X: a\rb\r\n", "X: a\nb\r\n", "\n", "\r", "\r\n", "\r\n\r\n", "Host: other\r\n", "HTTP/2.0", "HTTP/1.2",
        "HTTP/1.x", "%00", "%2", "%zz", "%2F", "+", "#", "?", "http://", "*", ";ext=\"v\"", "0\r\n\r\n",
        "FFFFFFFFFFFFFFFFFF\r\n", "zz\r\n", "5\r\nhelloXX", "Expect: 100-continue\r\n", "Connection: close\r\n",
        String(repeating: "a", count: 70), String(repeating: "X-H: v\r\n", count: 8), ":", " ", "\t", "\u{80}", "é",
    ]

    static let interestingBytes: [UInt8] = [0x00, 0x09, 0x0A, 0x0D, 0x20, 0x22, 0x25, 0x2B, 0x2C, 0x2F, 0x30, 0x3A,
                                            0x3B, 0x3D, 0x3F, 0x46, 0x7F, 0x80, 0xC3, 0xFF]
}

struct Mutator {
    var rng: SplitMix64

    mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &rng) }
    mutating func chance(_ percent: Int) -> Bool { int(0..<100) < percent }

    mutating func byte() -> UInt8 {
        chance(60) ? Corpus.interestingBytes.randomElement(using: &rng)! : UInt8.random(in: 0...255, using: &rng)
    }

    mutating func input() -> [UInt8] {
        var bytes: [UInt8] = []
        for _ in 0..<int(1..<4) { bytes += Array(Corpus.requests.randomElement(using: &rng)!.utf8) }
        for _ in 0..<int(0..<8) { mutate(&bytes) }
        return bytes
    }

    mutating func mutate(_ bytes: inout [UInt8]) {
        let position = int(0..<(bytes.count + 1))
        switch int(0..<8) {
        case 0 where !bytes.isEmpty: // flip or replace a byte
            let index = min(position, bytes.count - 1)
            bytes[index] = chance(50) ? byte() : bytes[index] ^ (1 << UInt8(int(0..<8)))
        case 1: // insert bytes
            bytes.insert(contentsOf: (0..<int(1..<4)).map { _ in byte() }, at: position)
        case 2 where !bytes.isEmpty: // delete a range
            let start = min(position, bytes.count - 1)
            bytes.removeSubrange(start..<min(bytes.count, start + int(1..<16)))
        case 3 where !bytes.isEmpty: // duplicate a range
            let start = int(0..<bytes.count)
            let end = min(bytes.count, start + int(1..<32))
            bytes.insert(contentsOf: bytes[start..<end], at: position)
        case 4, 5: // splice a rejection shape
            bytes.insert(contentsOf: Array(Corpus.shapes.randomElement(using: &rng)!.utf8), at: position)
        case 6: // splice a shape at a line start, where header shapes bite
            let lineStarts = [0] + bytes.indices.filter { bytes[$0] == 0x0A }.map { $0 + 1 }
            bytes.insert(contentsOf: Array(Corpus.shapes.randomElement(using: &rng)!.utf8),
                         at: lineStarts.randomElement(using: &rng)!)
        default: // truncate
            if chance(30) { bytes.removeSubrange(position...) }
        }
    }

    /// Random ascending cut points: few large pieces, or many small ones.
    mutating func cuts(for count: Int) -> [Int] {
        guard count > 1 else { return [] }
        if chance(10) { return Array(1..<count) }
        let pieces = chance(50) ? int(1..<4) : int(4..<32)
        return Set((0..<pieces).map { _ in int(1..<count) }).sorted()
    }
}

func environment(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}

@Suite("RequestParser robustness")
struct ParserRobustnessTests {
    @Test func seededMutationsNeverTrapAndOnlyFailWithAllowedStatuses() {
        let seed = environment("AXIOM_FUZZ_SEED").flatMap { UInt64($0) } ?? 0xA710_5EED
        let seconds = environment("AXIOM_FUZZ_SECONDS").flatMap { Int($0) }
        let iterations = 20_000
        var mutator = Mutator(rng: SplitMix64(seed: seed))
        var statuses: [Int: Int] = [:]
        var accepted = 0, events = 0, failures = 0, done = 0
        let clock = ContinuousClock()
        let deadline = seconds.map { clock.now + .seconds($0) }

        while failures < 5 {
            if let deadline { if clock.now >= deadline { break } } else if done >= iterations { break }
            done += 1
            let input = mutator.input()
            let limits = mutator.chance(50) ? ParserFuzzing.tinyLimits : ParserLimits()
            let cuts = mutator.cuts(for: input.count)
            let whole = input.withUnsafeBytes { ParserFuzzing.feed($0, cuts: [], limits: limits) }
            let pieces = input.withUnsafeBytes { ParserFuzzing.feed($0, cuts: cuts, limits: limits) }

            var problems: [String] = whole.violations.map { "whole: " + $0 } + pieces.violations.map { "pieces: " + $0 }
            if let status = whole.errorStatus, !ParserFuzzing.allowedErrorStatuses.contains(status) {
                problems.append("status \(status)")
            }
            if !whole.sameResult(as: pieces) { problems.append("whole and pieces disagree") }
            if !problems.isEmpty {
                failures += 1
                Issue.record("""
                    seed \(seed) iteration \(done): \(problems.joined(separator: "; "))
                    input \(String(decoding: input, as: UTF8.self).debugDescription) (\(input.count) bytes), limits \(limits), cuts \(cuts)
                    --- whole
                    \(whole)
                    --- pieces
                    \(pieces)
                    """)
            }
            if let status = whole.errorStatus { statuses[status, default: 0] += 1 } else { accepted += 1 }
            events += whole.events.count
        }
        print("parser robustness: seed \(seed), \(done) inputs, \(accepted) without error, \(events) events, "
              + "errors by status \(statuses.sorted { $0.key < $1.key })")

        #expect(failures == 0)
        // The generator must reach every outcome, or the test proves little.
        if seconds == nil || done >= iterations {
            #expect(accepted > done / 20, "too few inputs parse cleanly: \(accepted) of \(done)")
            for status in ParserFuzzing.allowedErrorStatuses.sorted() {
                #expect(statuses[status, default: 0] > 0, "no input was refused with \(status)")
            }
        }
    }

    @Test func seedCorpusParsesCleanlyInEveryPieceSize() {
        for request in Corpus.requests {
            let bytes = Array(request.utf8)
            let whole = bytes.withUnsafeBytes { ParserFuzzing.feed($0, chunkSize: 0) }
            #expect(whole.errorStatus == nil && whole.violations.isEmpty && whole.unconsumed == 0, "\(request.debugDescription): \(whole)")
            #expect(whole.events.count == 2)
            for size in 1...8 {
                let pieces = bytes.withUnsafeBytes { ParserFuzzing.feed($0, chunkSize: size) }
                #expect(pieces == whole, "pieces of \(size) for \(request.debugDescription)")
            }
        }
    }
}
