import Foundation

/// The expiry of a signed CDN link.
///
/// Reads the canned-policy `Expires` query item (Unix seconds) or the custom-policy `Policy`
/// (CloudFront's URL-safe base64 JSON, `Statement[0].Condition.DateLessThan["AWS:EpochTime"]`).
/// A link with neither never expires.
public struct SignedLink: Hashable, Sendable, CustomStringConvertible {
    /// The link.
    public let url: URL
    /// When the signature stops working, if the link is signed with an expiry.
    public let expiresAt: Date?

    /// Reads the expiry of `url`.
    public init(_ url: URL) {
        self.url = url
        self.expiresAt = SignedLink.expiry(of: url)
    }

    /// Whether the link is expired at `date`, or will be within `margin` seconds of it.
    public func isExpired(at date: Date = Date(), margin: TimeInterval = 0) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt <= date.addingTimeInterval(margin)
    }

    /// Whether the link carries a signature at all.
    public var isSigned: Bool {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.contains { $0.name == "Signature" } ?? false
    }

    /// The query items a CDN signs a link with (canned and custom CloudFront policies).
    static let signingQueryItems: Set<String> = ["Expires", "Signature", "Key-Pair-Id", "Policy"]

    /// The link without its signature: the same for every signing of one file, so it
    /// identifies the file across re-reads of its message (which sign it again).
    public var unsignedURL: URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false), let items = components.queryItems else { return url }
        let kept = items.filter { !SignedLink.signingQueryItems.contains($0.name) }
        guard kept.count != items.count else { return url }
        components.queryItems = kept.isEmpty ? nil : kept
        return components.url ?? url
    }

    /// The link and its expiry.
    public var description: String {
        "\(url.absoluteString) (expires \(expiresAt.map(RFC3339.string(from:)) ?? "never"))"
    }

    static func expiry(of url: URL) -> Date? {
        guard let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems else { return nil }
        if let expires = items.first(where: { $0.name == "Expires" })?.value, let seconds = Double(expires) {
            return Date(timeIntervalSince1970: seconds)
        }
        if let policy = items.first(where: { $0.name == "Policy" })?.value {
            return policyExpiry(policy)
        }
        return nil
    }

    /// The `AWS:EpochTime` of a CloudFront policy, which uses `-` `_` `~` for `+` `=` `/`.
    static func policyExpiry(_ policy: String) -> Date? {
        var base64 = String(policy.map { character -> Character in
            switch character {
            case "-": "+"
            case "_": "="
            case "~": "/"
            default: character
            }
        })
        base64 = base64.trimmingCharacters(in: CharacterSet(charactersIn: "="))
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let json = try? JSONParser().parse(data),
            case .array(let statements)? = json["Statement"]
        else { return nil }
        for statement in statements {
            if let seconds = statement["Condition"]?["DateLessThan"]?["AWS:EpochTime"]?.doubleValue {
                return Date(timeIntervalSince1970: seconds)
            }
        }
        return nil
    }
}
