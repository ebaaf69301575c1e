import ChatModels
@testable import ChatDevServer
import Foundation
import Logging
import Testing

@Suite("Before-send parts: the hook's answers and settings, and Range headers")
struct BeforeSendPartsTests {
    @Test(
        "an answer passes, rewrites, refuses, or fails (and the message goes through)",
        arguments: [
            ("", BeforeSendHook.Verdict.pass),
            ("  \n", .pass),
            ("{}", .pass),
            (#"{"message": null}"#, .pass),
            (#"{"message": {"type": "error", "text": "no"}}"#, .reject("no")),
            (#"{"message": {"type": "error"}}"#, .reject("This message was refused.")),
            (#"{"message": {"text": "hi"}}"#, .rewrite(["text": "hi"])),
            ("not json", .failed("answered something other than a JSON object (8 bytes)")),
            ("[1]", .failed("answered something other than a JSON object (3 bytes)")),
            (#"{"message": 3}"#, .failed("answered a message that is not an object")),
        ] as [(String, BeforeSendHook.Verdict)])
    func verdicts(_ body: String, _ expected: BeforeSendHook.Verdict) {
        #expect(BeforeSendHook.verdict(Data(body.utf8)) == expected)
    }

    @Test("a rewrite takes the rewritable fields and custom ones, never what the server owns, and a null changes nothing")
    func rewrites() {
        let sent: JSONObject = ["text": "darn", "mood": "grumpy", "attachments": []]
        let answer: JSONObject = [
            "text": "d**n", "silent": true, "mood": "calm", "extra": 1, "id": "other", "user": ["id": "mallory"], "created_at": "2001-01-01T00:00:00Z",
            "html": "<p>x</p>", "type": "system", "attachments": .null, "i18n": ["fr_text": "zut"],
        ]
        let result = BeforeSendHook.rewritten(sent, by: answer)
        #expect(result == ["text": "d**n", "mood": "calm", "attachments": [], "silent": true, "extra": 1, "i18n": ["fr_text": "zut"]])
    }

    @Test("the settings take a URL, and 0 to 5000 ms (0: the 1,500 ms default)")
    func settings() throws {
        #expect(throws: APIError.self) { try BeforeSendHook.check("before_message_send_hook_attempt_timeout_ms", -1) }
        #expect(throws: APIError.self) { try BeforeSendHook.check("before_message_send_hook_attempt_timeout_ms", 5001) }
        #expect(throws: APIError.self) { try BeforeSendHook.check("before_message_send_hook_attempt_timeout_ms", "1500") }
        #expect(throws: APIError.self) { try BeforeSendHook.check("before_message_send_hook_url", "mailto:x@example.com") }
        try BeforeSendHook.check("before_message_send_hook_attempt_timeout_ms", 5000)
        try BeforeSendHook.check("before_message_send_hook_url", "")
        let signer = PayloadSigner(apiSecret: "s")
        let logger = Logger(label: "test")
        #expect(BeforeSendHook(["before_message_send_hook_url": ""], apiKey: "k", signer: signer, logger: logger) == nil)
        let hook = try #require(BeforeSendHook(["before_message_send_hook_url": "http://127.0.0.1:1/h"], apiKey: "k", signer: signer, logger: logger))
        #expect(hook.attemptTimeout == .milliseconds(1500))
        let custom = BeforeSendHook(
            ["before_message_send_hook_url": "http://127.0.0.1:1/h", "before_message_send_hook_attempt_timeout_ms": 200], apiKey: "k", signer: signer,
            logger: logger)
        #expect(custom?.attemptTimeout == .milliseconds(200))
    }

    @Test(
        "Range headers as a CDN reads them, for a file of 100 bytes",
        arguments: [
            (nil, ByteRange.Request.whole),
            ("bytes=0-9", .part(ByteRange(first: 0, last: 9))),
            ("bytes=90-", .part(ByteRange(first: 90, last: 99))),
            ("bytes=-5", .part(ByteRange(first: 95, last: 99))),
            ("bytes=-500", .part(ByteRange(first: 0, last: 99))),
            ("bytes=50-5000", .part(ByteRange(first: 50, last: 99))),
            ("bytes=100-", .unsatisfiable),
            ("bytes=0-1,4-5", .whole),
            ("bytes=9-3", .whole),
            ("items=0-9", .whole),
            ("bytes=x-9", .whole),
        ] as [(String?, ByteRange.Request)])
    func ranges(_ header: String?, _ expected: ByteRange.Request) {
        #expect(ByteRange.request(header, size: 100) == expected)
    }
}
