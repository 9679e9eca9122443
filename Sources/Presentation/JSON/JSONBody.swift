import Domain
import FoundationEssentials
import HTTPServer

/// Request and response bodies as JSON. A request body is read in three
/// steps, each with the error a client needs:
/// 1. `Content-Type` must be JSON (`JSONMediaType`) → else 415
///    `unsupported_media_type`;
/// 2. the bytes must be strict JSON (`JSONSyntax`: RFC 8259, UTF-8, no
///    duplicate member names, no trailing commas) → else 400
///    `malformed_json`; a number with a fraction or exponent, or an integer
///    beyond 64 bits, is 422 `validation_failed` naming its field;
/// 3. JSONDecoder: JSON of the wrong shape (a missing member, a string where
///    a number belongs), a member the body does not take, or a string that
///    is none of an enumeration's values → 422 `validation_failed` naming
///    the field (`StrictDecoded`; a provider's event, which may grow
///    members, is `ProviderJSONObject` and takes any).
public enum JSONBody {
    public static func decode<T: Decodable>(_ type: T.Type, from request: HTTPRequest) throws -> T {
        try requireJSONMediaType(request)
        guard !request.body.isEmpty else {
            throw HTTPError(.badRequest, code: "malformed_json", detail: "The request body must be a JSON object.")
        }
        switch JSONSyntax.check(request.body) {
        case .valid:
            break
        case .malformed:
            throw malformed
        case .notAnInteger(let path):
            throw validation(path, .invalidFormat, "\(path) must be an integer, written without a fraction or exponent.")
        case .outOfRange(let path):
            throw validation(path, .outOfRange, "\(path) is beyond the 64-bit integer range.")
        }
        do {
            if T.self is any ProviderJSONObject.Type { return try JSONDecoder().decode(T.self, from: Data(request.body)) }
            return try JSONDecoder().decode(StrictDecoded<T>.self, from: Data(request.body)).value
        } catch let error as UnknownMembers {
            throw ValidationError(error.names.map { name in
                let field = path(error.path + [AnyMemberKey(stringValue: name)])
                return FieldError(field: field, code: .unknownField, message: "\(field) is not a member of this request body")
            }).problem
        } catch let error as DecodingError {
            throw problem(for: error)
        } catch let refusal as any Refusal {
            throw refusal.problem
        }
    }

    /// 415 unless the request says its body is JSON. Every route that reads
    /// a body calls this first, the fast paths too.
    static func requireJSONMediaType(_ request: HTTPRequest) throws {
        guard JSONMediaType.accepts(request.headers["content-type"]) else {
            throw HTTPError(.unsupportedMediaType, code: "unsupported_media_type",
                            detail: "The request body must be sent as Content-Type: application/json.")
        }
    }

    private static var malformed: HTTPError {
        HTTPError(.badRequest, code: "malformed_json",
                  detail: "The request body is not strict JSON (RFC 8259 in UTF-8, each member name once, no trailing commas).")
    }

    /// A JSON response (`application/json; charset=utf-8`).
    public static func response<T: Encodable>(_ value: T, status: HTTPStatus = .ok,
                                              headers: HTTPFields = HTTPFields()) throws -> HTTPResponse {
        .json(status, try encode(value), headers: headers)
    }

    /// `value` as compact JSON on one line, as every response writes it.
    public static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        // One state, one byte sequence, members in the order the type
        // writes them (`id` first): the ETag is a hash of these bytes, and
        // JSONEncoder without sortedKeys made two GET /products of the same
        // page differ at byte 3, so no revalidation matched (REDbot:
        // "If-None-Match ... returned the full content").
        try OrderedJSONEncoder().encode(value)
    }

    static func problem(for error: DecodingError) -> HTTPError {
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return HTTPError(.badRequest, code: "malformed_json", detail: "The request body is not valid JSON.")
        case .keyNotFound(let key, let context):
            return validation(path(context.codingPath + [key]), .required, "This field is required.")
        case .typeMismatch(let expected, let context):
            return validation(path(context.codingPath), .invalidFormat, "Expected \(describe(expected)).")
        case .valueNotFound(let expected, let context):
            return validation(path(context.codingPath), .required, "Expected \(describe(expected)), found null.")
        case .dataCorrupted(let context):
            return validation(path(context.codingPath), .invalidFormat, context.debugDescription)
        @unknown default:
            return HTTPError(.badRequest, code: "malformed_json", detail: "The request body could not be decoded.")
        }
    }

    private static func validation(_ field: String, _ code: FieldError.Code, _ message: String) -> HTTPError {
        ValidationError([FieldError(field: field, code: code, message: message)]).problem
    }

    /// `items[2].quantity` from a coding path.
    static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text.isEmpty ? "body" : text
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Int64.Type, is Int32.Type: "an integer"
        case is Bool.Type: "true or false"
        case is Double.Type: "a number"
        default: "a value of another type"
        }
    }
}
