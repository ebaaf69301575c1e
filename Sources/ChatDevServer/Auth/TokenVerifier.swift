import ChatModels
import Foundation
import JWTKit

/// Verifies the credentials of REST and WebSocket requests: the API key and an HS256 token
/// signed with the app secret (jwt-kit), mapping every failure to Stream's error codes.
struct TokenVerifier: Sendable {
    /// The claims Stream tokens carry; anything else in the token is ignored.
    struct Claims: JWTPayload {
        var userId: String?
        var server: Bool?
        var exp: ExpirationClaim?
        var nbf: NotBeforeClaim?
        var iat: IssuedAtClaim?

        enum CodingKeys: String, CodingKey {
            case userId = "user_id"
            case server, exp, nbf, iat
        }

        /// Time claims are checked by the verifier so each gets its own Stream code.
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    let apiKey: String
    let acceptsDevTokens: Bool
    private let keys: JWTKeyCollection

    init(apiKey: String, apiSecret: String, acceptsDevTokens: Bool) async {
        self.apiKey = apiKey
        self.acceptsDevTokens = acceptsDevTokens
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: apiSecret), digestAlgorithm: .sha256)
        self.keys = keys
    }

    /// Checks the key and the token and says who they authenticate.
    func authenticate(apiKey presentedKey: String?, token: String?, authType: String?) async throws(APIError) -> Principal {
        guard let presentedKey, !presentedKey.isEmpty else {
            throw .unauthorized(code: 2, "API key not found: pass it as the api_key query parameter")
        }
        guard presentedKey == apiKey else {
            throw .unauthorized(code: 2, "api_key \"\(presentedKey)\" is not valid for this server")
        }
        if authType?.lowercased() == "anonymous" {
            throw .unauthorized(code: 5, "anonymous access is not enabled on this server; send a JWT with stream-auth-type: jwt")
        }
        guard var token, !token.isEmpty, token != "undefined" else {
            throw .unauthorized(code: 5, "JWTAuth error: no token; send it in the Authorization header")
        }
        if token.lowercased().hasPrefix("bearer ") { token = String(token.dropFirst(7)) }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw .unauthorized(code: 5, "JWTAuth error: the token is not a JWT (header.payload.signature)")
        }
        let claims: Claims
        if parts[2] == "devtoken" {
            guard acceptsDevTokens else {
                throw .unauthorized(code: 43, "JWTAuth error: development tokens are accepted only when the server runs with --dev")
            }
            claims = try TokenVerifier.unverifiedClaims(String(parts[1]))
        } else {
            do {
                claims = try await keys.verify(token, as: Claims.self)
            } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
                throw .unauthorized(code: 43, "JWTAuth error: signature is not valid; sign tokens with this app's secret (HS256)")
            } catch {
                throw .unauthorized(code: 5, "JWTAuth error: the token could not be read: \(error)")
            }
        }
        let now = Date()
        if let exp = claims.exp?.value, exp <= now {
            throw .unauthorized(code: 40, "JWTAuth error: token has expired at \(RFC3339.string(from: exp))")
        }
        if let nbf = claims.nbf?.value, nbf > now.addingTimeInterval(5) {
            throw .unauthorized(code: 41, "JWTAuth error: token is not valid before \(RFC3339.string(from: nbf))")
        }
        if let iat = claims.iat?.value, iat > now.addingTimeInterval(5 * 60) {
            throw .unauthorized(code: 42, "JWTAuth error: token issued-at \(RFC3339.string(from: iat)) is in the future")
        }
        if let userId = claims.userId, !userId.isEmpty { return .user(userId) }
        return .server
    }

    /// A user token for `userId`, signed with the app secret and valid for `lifetime`, as an
    /// app's backend hands one to its client; the playground asks for it in dev mode only.
    func userToken(for userId: String, lifetime: Duration) async throws -> String {
        let now = Date()
        let claims = Claims(
            userId: userId, exp: ExpirationClaim(value: now.addingTimeInterval(lifetime.seconds)), iat: IssuedAtClaim(value: now))
        return try await keys.sign(claims)
    }

    /// The claims of a development token, whose "signature" is the word `devtoken`.
    static func unverifiedClaims(_ payload: String) throws(APIError) -> Claims {
        var base64 = payload.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let claims = try? JSONDecoder().decode(Claims.self, from: data) else {
            throw .unauthorized(code: 5, "JWTAuth error: the development token's payload is not valid JSON")
        }
        return claims
    }
}
