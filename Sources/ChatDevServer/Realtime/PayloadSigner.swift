import ChatModels
import Crypto
import Foundation

/// Signs what the dev server posts to the app's own endpoints (webhook events, custom command
/// requests) as the service does: `X-Signature` is the hex HMAC-SHA256 of the body with the
/// app's secret. One key, made once.
struct PayloadSigner: Sendable {
    private let key: SymmetricKey

    init(apiSecret: String) { key = SymmetricKey(data: Data(apiSecret.utf8)) }

    /// The `X-Signature` of `body`: lower-case hex.
    func signature(of body: some DataProtocol) -> String {
        HexDigits.string(HMAC<SHA256>.authenticationCode(for: body, using: key))
    }
}
