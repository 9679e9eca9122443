extension KeyedDecodingContainer {
    /// A member a request may leave out but, when it is there, must hold a
    /// value. `decodeIfPresent` reads `{"role": null}` as "left out", so a
    /// patch with a null answered 200 where the document promises 422
    /// (schemathesis, signed in, found it on `PATCH /users/{id}` and
    /// `PATCH /users/me`). The null is refused as `valueNotFound`, which
    /// JSONBody reports as a validation failure naming the member.
    func decodeOptionalMember<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard contains(key) else { return nil }
        if try decodeNil(forKey: key) {
            throw DecodingError.valueNotFound(T.self, DecodingError.Context(
                codingPath: codingPath + [key], debugDescription: "\(key.stringValue) must not be null"))
        }
        return try decode(T.self, forKey: key)
    }
}
