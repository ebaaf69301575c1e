import ChatModels
import Foundation
import Testing

@Suite("RFC 3339 dates")
struct RFC3339Tests {
    @Test("reads plain, micro, nano and offset forms")
    func parses() throws {
        let plain = try #require(RFC3339.date(from: "2026-06-24T11:44:49Z"))
        #expect(plain.timeIntervalSince1970 == 1_782_301_489)
        let micro = try #require(RFC3339.date(from: "2026-06-24T11:44:49.394479Z"))
        #expect(abs(micro.timeIntervalSince1970 - 1_782_301_489.394479) < 1e-6)
        let nano = try #require(RFC3339.date(from: "2026-06-24T11:44:48.215772568Z"))
        #expect(abs(nano.timeIntervalSince1970 - 1_782_301_488.215772568) < 1e-6)
        let offset = try #require(RFC3339.date(from: "2026-06-24T13:44:49+02:00"))
        #expect(offset == plain)
        #expect(RFC3339.date(from: "1970-01-01T00:00:00Z")?.timeIntervalSince1970 == 0)
        #expect(RFC3339.date(from: "2024-02-29T00:00:00Z") != nil)
        let halfEast = try #require(RFC3339.date(from: "2026-06-24T11:44:49.5-01:30"))
        #expect(halfEast.timeIntervalSince1970 == 1_782_301_489.5 + 5400)
    }

    @Test("refuses malformed dates", arguments: [
        "", "2026-06-24", "2026-06-24T11:44:49", "2026-13-01T00:00:00Z", "2025-02-29T00:00:00Z", "2026-06-24T25:00:00Z",
        "2026-06-24T11:44:49.Z", "2026-06-24T11:44:49Zjunk", "yesterday", "2026-06-24X11:44:49Z", "2026-06-24T11:44:49+0200",
        "2026-06-24T11:44:49+02:00junk", "2026-06-24T11:4a:49Z", "+026-06-24T11:44:49Z",
    ])
    func refuses(text: String) {
        #expect(RFC3339.date(from: text) == nil)
    }

    @Test("writes UTC with microseconds and reads it back")
    func formats() throws {
        let date = Date(timeIntervalSince1970: 1_782_301_489.394479)
        let text = RFC3339.string(from: date)
        #expect(text == "2026-06-24T11:44:49.394479Z")
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: -1.5)) == "1969-12-31T23:59:58.500000Z")
    }
}
