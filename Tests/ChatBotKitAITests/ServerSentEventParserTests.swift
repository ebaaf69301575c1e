import Foundation
import Testing

@testable import ChatBotKitAI

@Suite struct ServerSentEventParserTests {
    @Test func eventsSplitAnywhereAreJoined() throws {
        let stream = Array("data: {\"a\":\"caf\u{e9} \u{1F3C3}\"}\r\n\r\n: a comment\n\nevent: x\ndata: one\ndata: two\n\ndata: [DONE]\n\n".utf8)
        // Every split point, a UTF-8 character's bytes included.
        for split in 1..<stream.count {
            var parser = ServerSentEventParser()
            let events = try parser.feed(stream[..<split]) + parser.feed(stream[split...])
            #expect(events.map(\.data) == ["{\"a\":\"caf\u{e9} \u{1F3C3}\"}", "one\ntwo", "[DONE]"], "split at \(split)")
            #expect(events[1].name == "x")
        }
    }

    @Test func anEventWithoutItsBlankLineIsNotDelivered() throws {
        var parser = ServerSentEventParser()
        #expect(try parser.feed(Array("data: half".utf8)).isEmpty)
    }

    @Test func anEndlessLineIsAMalformedStream() {
        var parser = ServerSentEventParser(maximumLineLength: 16)
        #expect {
            _ = try parser.feed(Array(repeating: UInt8(ascii: "x"), count: 17))
        } throws: { error in
            (error as? ModelError)?.code == .malformedStream && (error as? ModelError)?.message.contains("line 1") == true
        }
    }
}
