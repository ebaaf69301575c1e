import ChatModels
import Foundation
import Testing

@Suite("Signed links")
struct SignedLinkTests {
    @Test("reads Expires (Unix seconds)")
    func expires() throws {
        let link = SignedLink(try #require(URL(string: "https://us-east.stream-io-cdn.com/0000/images/foo.png?Key-Pair-Id=K&Expires=1602666347&Signature=s")))
        #expect(link.expiresAt == Date(timeIntervalSince1970: 1_602_666_347))
        #expect(link.isSigned)
        #expect(link.isExpired(at: Date(timeIntervalSince1970: 1_602_666_347)))
        #expect(!link.isExpired(at: Date(timeIntervalSince1970: 1_602_666_000)))
        #expect(link.isExpired(at: Date(timeIntervalSince1970: 1_602_666_000), margin: 600))
    }

    @Test("reads the CloudFront Policy of the real upload response")
    func policy() throws {
        let response = try Fixture.json("upload-response.json")
        let url = try #require(response["file"]?.stringValue.flatMap(URL.init(string:)))
        let link = SignedLink(url)
        #expect(link.expiresAt == Date(timeIntervalSince1970: 1_783_511_089))
        #expect(RFC3339.string(from: try #require(link.expiresAt)) == "2026-07-08T11:44:49.000000Z")
        #expect(response["duration"] == "49.41ms")
    }

    @Test("a link without expiry never expires; a malformed policy is no expiry")
    func noExpiry() throws {
        #expect(SignedLink(try #require(URL(string: "https://example.com/a.png"))).expiresAt == nil)
        #expect(!SignedLink(try #require(URL(string: "https://example.com/a.png"))).isExpired(at: .distantFuture))
        #expect(SignedLink(try #require(URL(string: "https://example.com/a.png?Policy=@@@&Signature=x"))).expiresAt == nil)
    }

    @Test("the unsigned link drops exactly the signing query items, so every signing of a file gives the same one")
    func unsigned() throws {
        let canned = try #require(URL(string: "https://cdn.example/1/a%20b.png?Key-Pair-Id=K&Expires=1602666347&Signature=s&w=100"))
        let again = try #require(URL(string: "https://cdn.example/1/a%20b.png?Expires=1700000000&w=100&Signature=t&Key-Pair-Id=K"))
        #expect(SignedLink(canned).unsignedURL.absoluteString == "https://cdn.example/1/a%20b.png?w=100")
        #expect(SignedLink(canned).unsignedURL == SignedLink(again).unsignedURL)
        let policy = try #require(URL(string: "https://cdn.example/2/f.pdf?Policy=eyJ9&Signature=s&Key-Pair-Id=K"))
        #expect(SignedLink(policy).unsignedURL.absoluteString == "https://cdn.example/2/f.pdf")
        let plain = try #require(URL(string: "https://example.com/a.png?size=2"))
        #expect(SignedLink(plain).unsignedURL == plain, "a link without a signature is unchanged")
        #expect(SignedLink(policy).unsignedURL != SignedLink(try #require(URL(string: "https://cdn.example/2/g.pdf?Signature=s"))).unsignedURL)
    }
}
