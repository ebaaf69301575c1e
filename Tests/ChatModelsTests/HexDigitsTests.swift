import ChatModels
import Foundation
import Testing

@Suite("Hex digits: signatures, digests and ids written and read")
struct HexDigitsTests {
    @Test("bytes are written as two lowercase digits each and read back, in either case")
    func bytesRoundTrip() {
        let bytes: [UInt8] = [0x00, 0x01, 0x0f, 0x10, 0x7f, 0x80, 0xab, 0xff]
        #expect(HexDigits.string(bytes) == "00010f107f80abff")
        #expect(HexDigits.string(bytes) == bytes.map { String(format: "%02x", $0) }.joined())
        #expect(HexDigits.bytes("00010f107f80abff") == bytes)
        #expect(HexDigits.bytes("00010F107F80ABFF") == bytes)
        #expect(HexDigits.string([UInt8]()) == "")
        let all = (0...255).map(UInt8.init)
        #expect(HexDigits.bytes(HexDigits.string(all)) == all)
    }

    @Test("text that is not whole bytes of hex digits reads as nil", arguments: ["", "a", "abc", "0g", "zz", " 00", "00 ", "+1", "é0"])
    func notHex(_ text: String) {
        #expect(HexDigits.bytes(text) == nil)
    }

    @Test("a 64-bit value is 16 digits with its leading zeros; read back from lowercase digits only")
    func values() {
        #expect(HexDigits.string(UInt64(0)) == "0000000000000000")
        #expect(HexDigits.string(UInt64(0x00f0_67aa_0ba9_02b7)) == "00f067aa0ba902b7")
        #expect(HexDigits.string(UInt64.max) == "ffffffffffffffff")
        #expect(HexDigits.value("00f067aa0ba902b7") == 0x00f0_67aa_0ba9_02b7)
        #expect(HexDigits.value("ff") == 255)
        #expect(HexDigits.value("FF") == nil)
        #expect(HexDigits.value("") == nil)
        #expect(HexDigits.value("10000000000000000") == nil)  // 17 digits
    }
}
