import ChatModels
import ChatTransport
import Foundation

/// Mints Stream tokens: HS256 JWTs signed with the app secret, `{"server": true}` for
/// server-side calls and `{"user_id": "..."}` for a user.
public struct TokenSigner: Sendable {
    private let key: [UInt8]

    /// A signer for `secret`.
    public init(secret: String) {
        key = Array(secret.utf8)
    }

    /// A server token (full permissions; acting users are named in request bodies).
    public func serverToken() -> String {
        token(claims: ["server": true])
    }

    /// A token for `userId`, optionally expiring at `expiresAt`.
    public func userToken(for userId: String, expiresAt: Date? = nil) -> String {
        var claims: JSONObject = ["user_id": .string(userId)]
        if let expiresAt { claims["exp"] = .number(JSONNumber(Int64(expiresAt.timeIntervalSince1970))) }
        return token(claims: claims)
    }

    func token(claims: JSONObject) -> String {
        let header = TokenSigner.base64URL(Data(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
        let payload = TokenSigner.base64URL(JSONWriter.data(.object(claims)))
        let signingInput = "\(header).\(payload)"
        let signature = HMACSHA256.authenticationCode(for: signingInput.utf8, key: key)
        return "\(signingInput).\(TokenSigner.base64URL(Data(signature)))"
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
