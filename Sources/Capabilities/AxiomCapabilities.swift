import Axiom

// The storage and security capabilities already have the members of Axiom's
// `Capability` (a cached `isAvailable`, a probing `checkAvailability()`);
// declaring the conformance lets the orchestrator register, probe and
// re-create them (transient, RFC-001 constraint 2.14).
extension SQLiteStorage: Capability {}
extension PostgresStorage: Capability {}
extension SecureRandom: Capability {}
extension PasswordHasher: Capability {}
extension MessageAuthenticator: Capability {}
extension MailTransport: Capability {}
extension OutboundHTTP: Capability {}
