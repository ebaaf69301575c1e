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
}
