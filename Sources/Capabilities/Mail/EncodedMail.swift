/// A message ready for SMTP: its bytes (CRLF lines, not yet dot-stuffed)
/// and the envelope and extensions it needs.
struct EncodedMail: Sendable {
    let bytes: [UInt8]
    let sender: String
    let recipients: [String]
    /// A non-ASCII address: MAIL FROM needs SMTPUTF8 (RFC 6531).
    let needsSMTPUTF8: Bool
    /// Octets above 127 anywhere (UTF-8 addresses in the header): BODY=8BITMIME.
    let hasEightBitOctets: Bool
    let messageID: String
}
