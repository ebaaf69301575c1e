import ChatModels
import Testing

@Suite("Sizes in configuration and messages")
struct ByteSizeTextTests {
    @Test("reads sizes with and without units, in powers of 1024", arguments: [
        ("1048576", Int64(1_048_576)), ("25MB", 26_214_400), ("100 MB", 104_857_600), ("512kb", 524_288), ("1GiB", 1_073_741_824),
        ("1.5K", 1536), ("0", 0), ("7B", 7),
    ])
    func parses(text: String, bytes: Int64) {
        #expect(ByteSizeText.parse(text) == bytes)
    }

    @Test("refuses what is not a size", arguments: ["", "lots", "-1MB", "MB", "1TB", "1.5", "nanMB"])
    func refuses(text: String) {
        #expect(ByteSizeText.parse(text) == nil)
    }

    @Test("writes sizes people read, which read back within the rounding", arguments: [
        (Int64(0), "0 bytes"), (1, "1 byte"), (1000, "1000 bytes"), (1024, "1 KB"), (1536, "1.5 KB"), (10_158, "9.9 KB"),
        (104_857_600, "100 MB"), (125_829_120, "120 MB"), (1_548_093, "1.5 MB"), (3_221_225_472, "3 GB"),
        (1_048_570, "1 MB"), (1023, "1023 bytes"), (1_023_900, "999.9 KB"),
    ])
    func formats(bytes: Int64, text: String) throws {
        #expect(ByteSizeText.format(bytes) == text)
        let back = try #require(ByteSizeText.parse(text))
        #expect(abs(Double(back - bytes)) <= max(1, Double(bytes) * 0.05), "\(text) reads back as \(back)")
    }
}
