import COpenSSLCrypto

/// SHA-256 over bytes given in pieces, from OpenSSL's libcrypto.
///
/// libcurl and libwebsockets already link libcrypto for TLS, so the client hashes through it
/// rather than through swift-crypto, whose BoringSSL was about 60% of what a bot compiled (107 of
/// 177 CPU seconds of the README bot's first build, measured December 2026). The package's
/// server side, which builds BoringSSL anyway, keeps swift-crypto.
package struct SHA256Hasher: ~Copyable {
    private let context: OpaquePointer

    /// A hasher with nothing hashed yet.
    package init() {
        guard let context = EVP_MD_CTX_new() else { fatalError("OpenSSL could not allocate a digest context (out of memory)") }
        precondition(EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1, "OpenSSL has no SHA-256")
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Hashes `bytes` after what came before.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        precondition(EVP_DigestUpdate(context, base, bytes.count) == 1, "OpenSSL failed to hash")
    }

    /// Hashes the bytes of `sequence` after what came before.
    package mutating func update(_ sequence: some Sequence<UInt8>) {
        if sequence.withContiguousStorageIfAvailable({ update(UnsafeRawBufferPointer($0)) }) == nil {
            Array(sequence).withUnsafeBytes { update($0) }
        }
    }

    /// The 32-byte digest of everything hashed.
    package consuming func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        precondition(EVP_DigestFinal_ex(context, &digest, &length) == 1 && length == 32, "OpenSSL failed to finish a SHA-256")
        return digest
    }

    /// The SHA-256 of `bytes`.
    package static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var hasher = SHA256Hasher()
        hasher.update(bytes)
        return hasher.finalize()
    }
}
