// Coverage-guided fuzz target for the HTTP/1.1 request parser (libFuzzer).
//
//   swift build -c release --sanitize=fuzzer --product HTTPParserFuzzer
//   scripts/fuzz.sh 300          # builds, seeds a corpus, fuzzes 300 s
//
// Built that way, libFuzzer supplies `main` and calls LLVMFuzzerTestOneInput
// for every input. Built normally (`swift build`), this file's top-level code
// is the entry point instead: it replays the files named on the command line
// through the same check, which is how a crash file is reproduced and
// debugged without the sanitizer.
//
// The first input byte picks the configuration (default or tiny limits, and
// the size of the pieces the second feeding arrives in); the rest is the
// byte stream. Every input is fed twice, whole and in pieces, and the check
// traps (a libFuzzer "crash") when an invariant breaks or the two feedings
// disagree.
@_spi(Fuzzing) import HTTPServer
import FuzzReplay

func check(_ data: UnsafeRawBufferPointer) {
    guard let selector = data.first else { return }
    let input = UnsafeRawBufferPointer(rebasing: data[1...])
    let limits = selector & 1 == 0 ? ParserLimits() : ParserFuzzing.tinyLimits
    let pieceSizes = [1, 2, 3, 5, 7, 16, 64, 1]
    let pieceSize = pieceSizes[Int(selector >> 1) & 7]

    let whole = ParserFuzzing.feed(input, chunkSize: 0, limits: limits)
    if !whole.violations.isEmpty {
        fatalError("invariant broken (whole):\n\(whole)")
    }
    let pieces = ParserFuzzing.feed(input, chunkSize: pieceSize, limits: limits)
    if !pieces.violations.isEmpty {
        fatalError("invariant broken (pieces of \(pieceSize)):\n\(pieces)")
    }
    if !whole.sameResult(as: pieces) {
        fatalError("whole and pieces of \(pieceSize) disagree:\n--- whole\n\(whole)\n--- pieces\n\(pieces)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    check(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
    return 0
}

// Replay mode (normal builds). With --sanitize=fuzzer SwiftPM compiles this
// file as a library (-parse-as-library) and libFuzzer's main runs instead, so
// the file holds declarations only, no statements. In a normal build it is
// the script entry point, where a global's initializer runs eagerly, in
// order: `replayed` below is what runs the replay. (In library mode the
// initializer is lazy and never triggered.)
let replayed = FuzzReplay.run(CommandLine.arguments.dropFirst(), check: check)
