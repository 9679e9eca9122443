import Domain
import FoundationEssentials
import HTTPServer

/// Request and response bodies as JSON. Decoding failures are told apart the
/// way a client needs them: bytes that are not JSON at all → 400
/// `malformed_json`; JSON of the wrong shape (a missing member, a string
/// where a number belongs) → 422 `validation_failed` naming the field.
public enum JSONBody {
    public static func decode<T: Decodable>(_ type: T.Type, from request: HTTPRequest) throws -> T {
        guard !request.body.isEmpty else {
            throw HTTPError(.badRequest, code: "malformed_json", detail: "The request body must be a JSON object.")
        }
        let data = Data(request.body)
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let error as DecodingError {
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty, JSONSyntax.isValid(request.body) {
                // Syntactically JSON, but the decoder could not represent a
                // value in it (a number beyond 64 bits): a content problem.
                throw validation("body", .invalidFormat, "The body holds a value out of range: \(context.debugDescription)")
            }
            throw problem(for: error)
        } catch let error as DomainError {
            throw DomainProblem.httpError(for: error)
        } catch let error as ValidationError {
            throw DomainProblem.httpError(for: .validation(error))
        }
    }

    /// A JSON response (`application/json; charset=utf-8`).
    public static func response<T: Encodable>(_ value: T, status: HTTPStatus = .ok,
                                              headers: HTTPFields = HTTPFields()) throws -> HTTPResponse {
        .json(status, try encode(value), headers: headers)
    }

    /// `value` as compact JSON on one line, as every response writes it.
    public static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return Array(try encoder.encode(value))
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
        DomainProblem.httpError(for: .validation(ValidationError([FieldError(field: field, code: code, message: message)])))
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
