@testable import HTTPServer

// Swift Testing also declares `Expectation`, and the module name `HTTPServer`
// is shadowed by the class `HTTPServer`, so the parser's `Expectation` is
// named here, in a file that does not import Testing.
typealias HeadExpectation = Expectation
