import COpenSSLCrypto

/// HMAC-SHA256 (RFC 2104), from OpenSSL's libcrypto, for the tokens and signatures the client
/// makes (see ``SHA256Hasher`` for why libcrypto).
package enum HMACSHA256 {
    /// The 32-byte authentication code of `message` under `key`.
    package static func authenticationCode(for message: some Sequence<UInt8>, key: some Sequence<UInt8>) -> [UInt8] {
        let key = Array(key)
        let message = Array(message)
        var code = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let made = key.withUnsafeBytes { key in
            message.withUnsafeBytes { message in
                HMAC(EVP_sha256(), key.baseAddress, Int32(key.count), message.bindMemory(to: UInt8.self).baseAddress, message.count, &code, &length)
            }
        }
        precondition(made != nil && length == 32, "OpenSSL failed to compute an HMAC-SHA256")
        return code
    }
}
