// Coverage-guided fuzz target for request-body JSON (libFuzzer).
//
//   swift build -c release --sanitize=fuzzer --product JSONBodyFuzzer
//   scripts/fuzz.sh --json 300   # builds, seeds a corpus, fuzzes 300 s
//
// Built that way, libFuzzer supplies `main` and calls LLVMFuzzerTestOneInput
// for every input. Built normally (`swift build`), this file's top-level code
// is the entry point instead: it replays the files named on the command line
// through the same check, to reproduce a crash file without the sanitizer.
//
// Every input is the body of a request with Content-Type: application/json:
// strict syntax check, every route's body type decoded and validated, the
// cart fast path against the full decoder, the bytes as text through the text
// rules (JSONFuzzing). The check traps (a libFuzzer "crash") on any broken
// invariant; a trap inside the code under test is one by itself.
@_spi(Fuzzing) import Presentation
import FuzzReplay

func check(_ data: UnsafeRawBufferPointer) {
    let violations = JSONFuzzing.violations(Array(data))
    if !violations.isEmpty {
        fatalError("invariant broken:\n" + violations.joined(separator: "\n"))
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    check(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
    return 0
}

// Replay mode (normal builds); see Sources/HTTPParserFuzzer/main.swift for
// why the file holds only declarations and `replayed` runs the replay.
let replayed = FuzzReplay.run(CommandLine.arguments.dropFirst(), check: check)
