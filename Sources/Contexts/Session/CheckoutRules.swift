/// What the shop asks of a customer before checkout, given by the
/// composition root (`AxiomOrchestrator.compose(CheckoutContext.self, with:)`).
public struct CheckoutRules: Sendable {
    /// `require_verified_email`: an account whose address is not confirmed
    /// is refused checkout (409 `email_not_verified`).
    public let requireVerifiedEmail: Bool

    public init(requireVerifiedEmail: Bool = false) {
        self.requireVerifiedEmail = requireVerifiedEmail
    }
}
