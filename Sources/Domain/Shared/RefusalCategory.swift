/// What kind of refusal a `Refusal` is; the HTTP layer maps each to one
/// status. Every category is the caller's or the moment's, never a fault
/// of the server: nothing a domain rule refuses is answered 500.
public enum RefusalCategory: Hashable, Sendable, CaseIterable {
    /// The request itself is malformed or not authentic (400).
    case badRequest
    /// The credentials presented are wrong (401, a bare challenge).
    case unauthenticated
    /// The bearer token or ticket presented is not valid (401, a challenge
    /// naming `invalid_token`).
    case invalidToken
    /// The caller's role does not allow this (403).
    case forbidden
    /// No such entity (404).
    case notFound
    /// The state of the entity stands in the way (409).
    case conflict
    /// The state changed since the caller's `If-Match` (412).
    case preconditionFailed
    /// A value in the request is invalid (422).
    case invalid
    /// The caller must wait before trying again (429).
    case tooManyRequests
    /// The server cannot do this now; nothing was changed (503).
    case unavailable
}
