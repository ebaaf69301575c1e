import ChatModels
@testable import ChatDevServer
import ChatTestSupport
import Foundation
import Testing

@Suite("Dev server parts")
struct ServerPartsTests {
    @Test("durations read and write like configuration files do")
    func durations() {
        #expect(DurationText.parse("2s") == .seconds(2))
        #expect(DurationText.parse("10m") == .seconds(600))
        #expect(DurationText.parse("14d") == .seconds(14 * 86_400))
        #expect(DurationText.parse("500ms") == .milliseconds(500))
        #expect(DurationText.parse("1.5h") == .seconds(5400))
        for bad in ["", "5", "d", "-2s", "2 weeks", "0s"] { #expect(DurationText.parse(bad) == nil, "\(bad)") }
        #expect(DurationText.format(.seconds(14 * 86_400)) == "14d")
        #expect(DurationText.format(.milliseconds(250)) == "250ms")
    }

    @Test("signed links verify, and any change to path, expiry or signature is caught")
    func links() throws {
        let signer = LinkSigner(secret: "secret-of-at-least-thirty-two-bytes!", lifetime: .seconds(60))
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let link = signer.sign(path: "/files/abc/a.png", baseURL: "http://127.0.0.1:1", now: now)
        let items = try #require(URLComponents(string: link)?.queryItems)
        let expires = items.first { $0.name == "Expires" }?.value
        let signature = items.first { $0.name == "Signature" }?.value
        #expect(items.first { $0.name == "Key-Pair-Id" }?.value == LinkSigner.keyPairId)
        #expect(SignedLink(try #require(URL(string: link))).expiresAt == Date(timeIntervalSince1970: 1_800_000_060))
        #expect(signer.problem(path: "/files/abc/a.png", expires: expires, signature: signature, now: now) == nil)
        #expect(signer.problem(path: "/files/abd/a.png", expires: expires, signature: signature, now: now)?.contains("does not match") == true)
        #expect(signer.problem(path: "/files/abc/a.png", expires: "1900000000", signature: signature, now: now)?.contains("does not match") == true)
        #expect(signer.problem(path: "/files/abc/a.png", expires: expires, signature: signature, now: now.addingTimeInterval(61))?.contains("expired") == true)
        #expect(signer.problem(path: "/files/abc/a.png", expires: nil, signature: nil, now: now)?.contains("not signed") == true)
        let other = LinkSigner(secret: "another-secret-of-at-least-32-bytes", lifetime: .seconds(60))
        #expect(other.problem(path: "/files/abc/a.png", expires: expires, signature: signature, now: now) != nil)
    }

    @Test("display names keep no path and nothing outside a small alphabet")
    func displayNames() {
        #expect(FileStore.displayName("../../etc/passwd") == "passwd")
        #expect(FileStore.displayName("..\\..\\boot.ini") == "boot.ini")
        #expect(FileStore.displayName("....") == "file")
        #expect(FileStore.displayName("my photo (1).PNG") == "my_photo__1_.PNG")
        #expect(FileStore.displayName(String(repeating: "x", count: 300) + ".txt").count == 100)
        #expect(FileStore.fileId(inLink: "http://h:1/files/0a1b-2c/x.png?Expires=1") == "0a1b-2c")
        #expect(FileStore.fileId(inLink: "http://h:1/other/0a1b/x.png") == nil)
    }

    @Test("query strings decode like HTML forms (+ is a space)")
    func formQuery() {
        let query = FormQuery(rawQuery: "json=%7B%22user_id%22%3A+%22u2%22%7D&url=https%3A%2F%2Fcdn%2Fa%2Bb.png&flag&dup=1&dup=2")
        #expect(query["json"] == #"{"user_id": "u2"}"#)
        #expect(query["url"] == "https://cdn/a+b.png")
        #expect(query["flag"] == "")
        #expect(query["dup"] == "1")
        #expect(query["missing"] == nil)
    }

    @Test("duplicate slashes collapse in the path only")
    func slashes() {
        #expect(PathNormalizer.collapseSlashes("//app?x=//y") == "/app?x=//y")
        #expect(PathNormalizer.collapseSlashes("/channels//messaging///general/query") == "/channels/messaging/general/query")
    }

    @Test("upload rules: extensions, MIME wildcards, image types and magic bytes")
    func uploadRules() {
        let rules = UploadRules(blockedFileExtensions: [".exe"], allowedMimeTypes: ["image/*", "application/pdf"])
        let files = UploadPolicy(rules: rules, isImage: false, defaultSizeLimit: 100)
        #expect(files.problem(filename: "a.pdf", mimeType: "application/pdf") == nil)
        #expect(files.problem(filename: "a.EXE", mimeType: "image/png")?.contains(".exe is blocked") == true)
        #expect(files.problem(filename: "a.zip", mimeType: "application/zip")?.contains("not allowed") == true)
        #expect(files.sizeLimit == 100)
        let images = UploadPolicy(rules: UploadRules(sizeLimit: 10), isImage: true, defaultSizeLimit: 100)
        #expect(images.sizeLimit == 10)
        #expect(images.problem(filename: "a.png", mimeType: "application/octet-stream") == "File type application/octet-stream is not supported")
        #expect(UploadPolicy.imageBytesMatch([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0], mimeType: "image/png"))
        #expect(!UploadPolicy.imageBytesMatch(Array("MZ\u{90}".utf8), mimeType: "image/png"))
        #expect(UploadPolicy.imageBytesMatch([0xFF, 0xD8, 0xFF, 0xE0], mimeType: "image/jpeg"))
    }

    @Test("the server starts on a free port, answers, and stops on shutdown")
    func startsAndStops() async throws {
        let scratch = try ScratchFolder("devserver")
        let folder = scratch.path("devserver")
        let port = try await DevServer.withRunning(DevServerConfiguration(dataDirectory: folder)) { server in
            try await server.port()
        }
        #expect(port > 0)
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("chat.sqlite").path))
    }

    @Test("a data folder that cannot be made is refused with the path and the system's reason, not Foundation's error dump")
    func unusableDataFolder() async throws {
        let scratch = try ScratchFolder("blocker")
        let blocker = try scratch.write(Data("a file".utf8), as: "blocker")
        let folder = blocker.appendingPathComponent("data")
        let failure = await #expect(throws: DevServerError.self) {
            _ = try await DevServer(configuration: DevServerConfiguration(dataDirectory: folder))
        }
        #expect(failure?.code == .dataFolder)
        #expect(
            failure?.message == "cannot use the data folder \(folder.path): Not a directory; choose a folder this user can write"
                + " (embedded.data in bots.yaml, --data for bots serve)")
        #expect(try Data(contentsOf: blocker) == Data("a file".utf8))
    }
}
