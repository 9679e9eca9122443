/// What every mail says of the shop: its name, the address its links
/// start with (`public_url`), and where the admins' notices go.
public struct MailSite: Sendable, Hashable {
    public let shopName: String
    /// Without a trailing slash: `https://shop.example`.
    public let publicURL: String
    /// Where notices for the shop's admins go (a refund owed); nil sends none.
    public let adminAddress: String?

    public init(shopName: String, publicURL: String, adminAddress: String?) {
        self.shopName = shopName
        self.publicURL = publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        self.adminAddress = adminAddress
    }

    /// `path` (starting with `/`) under the public address.
    public func link(_ path: String) -> String { publicURL + path }
}
