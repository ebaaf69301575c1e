import ChatTransport
import Testing

/// SHA-256 and HMAC-SHA256 through libcrypto, against the published test vectors.
@Suite("Digests")
struct DigestTests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined() }

    @Test("SHA-256 of the FIPS 180-2 examples, whole and in pieces")
    func sha256() {
        #expect(Self.hex(SHA256Hasher.hash("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Self.hex(SHA256Hasher.hash([UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        var pieces = SHA256Hasher()
        for piece in ["abcdbcdecdefdefgefghfghighij", "hijkijkljklmklmnlmnomnopnopq"] { pieces.update(piece.utf8) }
        #expect(Self.hex(pieces.finalize()) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        var million = SHA256Hasher()
        let block = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { block.withUnsafeBytes { million.update($0) } }
        #expect(Self.hex(million.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("HMAC-SHA256 of RFC 4231's test cases 1, 2 and 6 (a key longer than a block)")
    func hmac() {
        #expect(
            Self.hex(HMACSHA256.authenticationCode(for: "Hi There".utf8, key: [UInt8](repeating: 0x0b, count: 20)))
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(
            Self.hex(HMACSHA256.authenticationCode(for: "what do ya want for nothing?".utf8, key: "Jefe".utf8))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(
            Self.hex(
                HMACSHA256.authenticationCode(
                    for: "Test Using Larger Than Block-Size Key - Hash Key First".utf8, key: [UInt8](repeating: 0xaa, count: 131)))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }
}
