import Testing
@testable import HTTPServer
import TestSupport

/// Each malformed shape is sent on its own connection; the server must
/// answer with the expected status and close, and keep serving others.
@Suite struct MalformedRequestTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let request: String
        let status: Int
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "Content-Length with Transfer-Encoding", request: "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", status: 400),
        Case(name: "Transfer-Encoding with Content-Length", request: "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n", status: 400),
        Case(name: "differing Content-Lengths", request: "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", status: 400),
        Case(name: "repeated identical Content-Length", request: "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello", status: 400),
        Case(name: "list-valued Content-Length", request: "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5, 5\r\n\r\nhello", status: 400),
        Case(name: "non-digit Content-Length", request: "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5a\r\n\r\nhello", status: 400),
        Case(name: "negative Content-Length", request: "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: -1\r\n\r\n", status: 400),
        Case(name: "plus-signed Content-Length", request: "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: +5\r\n\r\nhello", status: 400),
        Case(name: "chunked not last", request: "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", status: 400),
        Case(name: "chunked twice", request: "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", status: 400),
        Case(name: "unknown coding only", request: "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip\r\n\r\n", status: 400),
        Case(name: "unimplemented coding before chunked", request: "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", status: 501),
        Case(name: "Transfer-Encoding on HTTP/1.0", request: "POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", status: 400),
        Case(name: "obs-fold", request: "GET /health HTTP/1.1\r\nHost: t\r\nX-A: one\r\n two\r\n\r\n", status: 400),
        Case(name: "whitespace before colon", request: "GET /health HTTP/1.1\r\nHost: t\r\nX-A : one\r\n\r\n", status: 400),
        Case(name: "space inside field name", request: "GET /health HTTP/1.1\r\nHost: t\r\nX A: one\r\n\r\n", status: 400),
        Case(name: "invalid token character in field name", request: "GET /health HTTP/1.1\r\nHost: t\r\nX(A): one\r\n\r\n", status: 400),
        Case(name: "empty field name", request: "GET /health HTTP/1.1\r\nHost: t\r\n: one\r\n\r\n", status: 400),
        Case(name: "field line without colon", request: "GET /health HTTP/1.1\r\nHost: t\r\nNoColonHere\r\n\r\n", status: 400),
        Case(name: "NUL in field value", request: "GET /health HTTP/1.1\r\nHost: t\r\nX-A: o\u{0}ne\r\n\r\n", status: 400),
        Case(name: "bare CR in field value", request: "GET /health HTTP/1.1\r\nHost: t\r\nX-A: o\rne\r\n\r\n", status: 400),
        Case(name: "bare LF line ending", request: "GET /health HTTP/1.1\nHost: t\n\n", status: 400),
        Case(name: "missing Host on HTTP/1.1", request: "GET /health HTTP/1.1\r\n\r\n", status: 400),
        Case(name: "two Host fields", request: "GET /health HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", status: 400),
        Case(name: "HTTP/2.0 version", request: "GET /health HTTP/2.0\r\nHost: t\r\n\r\n", status: 505),
        Case(name: "HTTP/0.9 version", request: "GET /health HTTP/0.9\r\nHost: t\r\n\r\n", status: 505),
        Case(name: "userinfo in an absolute-form target", request: "GET http://user@t/health HTTP/1.1\r\nHost: t\r\n\r\n", status: 400),
        Case(name: "lowercase protocol name", request: "GET /health http/1.1\r\nHost: t\r\n\r\n", status: 400),
        Case(name: "garbage version", request: "GET /health HTTP/one\r\nHost: t\r\n\r\n", status: 400),
        Case(name: "missing version", request: "GET /health\r\nHost: t\r\n\r\n", status: 400),
        Case(name: "double space in request line", request: "GET  /health HTTP/1.1\r\nHost: t\r\n\r\n", status: 400),
        Case(name: "tab in request line", request: "GET\t/health HTTP/1.1\r\nHost: t\r\n\r\n", status: 400),
        Case(name: "invalid method token", request: "GE(T /health HTTP/1.1\r\nHost: t\r\n\r\n", status: 400),
        Case(name: "unknown method", request: "BREW /health HTTP/1.1\r\nHost: t\r\n\r\n", status: 501),
        Case(name: "unknown method on an unknown path", request: "BREW /nowhere HTTP/1.1\r\nHost: t\r\n\r\n", status: 501),
        Case(name: "non-ASCII byte in target", request: "GET /h\u{e9}alth HTTP/1.1\r\nHost: t\r\n\r\n", status: 400),
        Case(name: "malformed percent-encoding", request: "GET /items/%zz HTTP/1.1\r\nHost: t\r\n\r\n", status: 400),
        Case(name: "percent-encoded NUL", request: "GET /items/%00 HTTP/1.1\r\nHost: t\r\n\r\n", status: 400),
        Case(name: "relative target", request: "GET health HTTP/1.1\r\nHost: t\r\n\r\n", status: 400),
        Case(name: "asterisk target on GET", request: "GET * HTTP/1.1\r\nHost: t\r\n\r\n", status: 400),
        Case(name: "non-hex chunk size", request: "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n", status: 400),
        Case(name: "chunk data without CRLF", request: "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n", status: 400),
        Case(name: "junk after chunk size", request: "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5 junk\r\nhello\r\n0\r\n\r\n", status: 400),
        Case(name: "obs-fold in trailer", request: "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: a\r\n b\r\n\r\n", status: 400),
    ]

    @Test(arguments: cases)
    func malformedRequestIsRefused(_ testCase: Case) async throws {
        try await TestServer.with { server in
            let client = try server.client()
            let response = try client.exchange(testCase.request)
            #expect(response.status == testCase.status, "\(testCase.name)")
            #expect(response.header("Content-Type") == "application/problem+json")
            if testCase.status == 400 {
                #expect(response.header("Connection") == "close")
                #expect(try client.isClosedByPeer(), "\(testCase.name): connection left open after 400")
            }
            // The server is still healthy for everyone else.
            let other = try server.client()
            try other.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try other.readResponse().status == 200)
        }
    }

    @Test func atLeastTwentyFiveDistinctShapes() {
        #expect(Set(Self.cases.map(\.request)).count >= 25)
    }
}
