import ChatModels
import Foundation
import Testing

@Suite("JSON parser")
struct JSONParserTests {
    let parser = JSONParser()

    @Test("parses every JSON type and keeps key order and number text")
    func parsesValues() throws {
        let json = try parser.parse(#" {"b": [1, -2.50, 3e2, true, false, null], "a": "x\u00e9\n\ud83d\ude00", "c": {}} "#)
        let object = try #require(json.objectValue)
        #expect(object.keys == ["b", "a", "c"])
        #expect(json["b"]?.arrayValue?.map(\.description) == ["1", "-2.50", "3e2", "true", "false", "null"])
        #expect(json["a"]?.stringValue == "xé\n😀")
        #expect(json["c"]?.objectValue?.isEmpty == true)
        #expect(json["b"]?.arrayValue?[2].intValue == 300)
    }

    @Test("writes compact JSON that parses back to the same bytes")
    func roundTripsBytes() throws {
        let text = #"{"type":"product","sku":"A1","price":10.50,"big":123456789012345678901234567890,"tags":["x","y"],"note":"line\nnext \"quoted\" \\ back","nested":{"z":null,"a":false}}"#
        let json = try parser.parse(text)
        #expect(JSONWriter.string(json) == text)
    }

    @Test("strings are written with exactly quote, backslash and control characters escaped, at the start, in the middle and at the end")
    func writesEscapes() throws {
        let controls = String(decoding: (0..<0x20).map { UInt8($0) }, as: UTF8.self)
        let cases: [(String, String)] = [
            ("", #""""#), ("plain", #""plain""#), ("\"quoted\"", #""\"quoted\"""#), ("a\\b", #""a\\b""#),
            ("\nstart", #""\nstart""#), ("end\t", #""end\t""#), ("é😀 ok", "\"é😀 ok\""),
            (controls, #""\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000b\f\r\u000e\u000f\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f""#),
        ]
        for (text, written) in cases {
            #expect(JSONWriter.string(.string(text)) == written, "\(text.debugDescription)")
            #expect(try parser.parse(written).stringValue == text)
        }
    }

    @Test("non-JSON input is a syntax error with the byte offset", arguments: [
        ("hello", 0), ("{\"a\" 1}", 5), ("[1,]", 3), ("{\"a\":tru}", 8), ("[1 2]", 3), ("{\"a\":1}}", 7), ("\"\\x\"", 2), ("01", 1),
    ])
    func rejectsNonJSON(input: String, offset: Int) {
        #expect {
            _ = try parser.parse(input)
        } throws: { error in
            guard let error = error as? JSONError else { return false }
            return error.code == .syntax && error.offset == offset
        }
    }

    @Test("each structural error says what was expected and where", arguments: [
        ("?", JSONError.Code.syntax, 0, "unexpected '?' where a value should start"),
        ("1 2", .syntax, 2, "unexpected '2' after the JSON value"),
        ("{1:2}", .syntax, 1, "expected a string key, found '1'"),
        ("{\"a\":1,}", .syntax, 7, "expected a string key, found '}'"),
        ("{\"a\" 1}", .syntax, 5, "expected ':' after an object key, found '1'"),
        ("{\"a\u{01}\":1}", .syntax, 3, "control character byte 0x1 inside a string"),
        ("[\"a\u{1F}\"]", .syntax, 3, "control character byte 0x1F inside a string"),
        ("{\"a\":1 \"b\"}", .syntax, 7, "expected ',' or '}', found '\"'"),
        ("[1 2]", .syntax, 3, "expected ',' or ']', found '2'"),
        ("{", .unexpectedEnd, 1, "input ends where an object key was expected"),
        ("{\"a", .unexpectedEnd, 3, "input ends inside a string"),
        ("{\"a\"", .unexpectedEnd, 4, "input ends where ':' was expected"),
        ("{\"a\\\"", .unexpectedEnd, 5, "input ends inside a string"),
        ("-", .unexpectedEnd, 1, "input ends inside a number"),
        ("[-x]", .syntax, 2, "a number needs digits"),
        ("[1.]", .syntax, 3, "a number needs digits after '.'"),
        ("[1.5e]", .syntax, 5, "a number needs digits in its exponent"),
        ("[1e+]", .syntax, 4, "a number needs digits in its exponent"),
        ("[2E-x]", .syntax, 4, "a number needs digits in its exponent"),
        ("{\"a\":tru}", .syntax, 8, "expected 'true', found 'tru'"),
        ("[fals]", .syntax, 5, "expected 'false', found 'fals'"),
        ("[nul", .unexpectedEnd, 4, "input ends inside 'null'"),
        ("[nulL]", .syntax, 4, "expected 'null', found 'nulL'"),
        ("not json", .syntax, 1, "expected 'null', found 'not'"),
        ("[fa1se]", .syntax, 3, "expected 'false', found 'fa1se'"),
        ("[nuxxxxxxxxxxxxxxxxxxxx]", .syntax, 3, "expected 'null', found 'nuxxxxxxxxxxxxxx'"),
    ])
    func structuralErrors(input: String, code: JSONError.Code, offset: Int, message: String) {
        #expect {
            _ = try parser.parse(input)
        } throws: { error in
            guard let error = error as? JSONError else { return false }
            return error.code == code && error.offset == offset && error.message == message
        }
    }

    @Test("truncated input is an unexpected-end error", arguments: ["", "{", "{\"a\":", "[1, 2", "\"abc", "{\"a\":\"b\\", "-", "tr"])
    func rejectsTruncated(input: String) {
        #expect {
            _ = try parser.parse(input)
        } throws: { ($0 as? JSONError)?.code == .unexpectedEnd }
    }

    @Test("deeply nested input is refused instead of overflowing the stack")
    func refusesDeepNesting() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect {
            _ = try parser.parse(deep)
        } throws: { error in
            guard let error = error as? JSONError else { return false }
            return error.code == .nestingTooDeep && error.message.contains("256")
        }
        let allowed = String(repeating: "[", count: 256) + String(repeating: "]", count: 256)
        #expect(throws: Never.self) { try parser.parse(allowed) }
    }

    @Test("a depth limit far above any document, or below zero, is taken as it says: no crash")
    func extremeDepthLimits() throws {
        #expect(try JSONParser(maximumDepth: .max).parse("[[1],{\"a\":[]}]") == [[1], ["a": []]])
        #expect(try JSONParser(maximumDepth: 1).parse("[1]") == [1])
        for limit in [0, -3, .min] {
            #expect(try JSONParser(maximumDepth: limit).parse("1") == 1)
            #expect {
                _ = try JSONParser(maximumDepth: limit).parse("[1]")
            } throws: { error in
                (error as? JSONError)?.code == .nestingTooDeep
            }
        }
    }

    // Up to 64 KiB a document's node array is reserved whole before indexing, from a bound on
    // how many nodes its bytes can hold; these are the densest documents, complete and cut
    // off with every container open, on both sides of that size. (The AddressSanitizer run
    // of `make test` sees any write past the reservation.)
    @Test("the densest documents index exactly, complete or cut off with every container open, below and above 64 KiB", arguments: [1_000, 40_000])
    func denseDocuments(elements: Int) throws {
        let numbers = "[" + Array(repeating: "0", count: elements).joined(separator: ",") + "]"
        guard case .array(let parsedNumbers) = try parser.parse(numbers) else { Issue.record("not an array"); return }
        #expect(parsedNumbers.count == elements && parsedNumbers.allSatisfy { $0 == 0 })

        let empties = "[" + Array(repeating: "[]", count: elements).joined(separator: ",") + "]"
        guard case .array(let parsedEmpties) = try parser.parse(empties) else { Issue.record("not an array"); return }
        #expect(parsedEmpties.count == elements && parsedEmpties.allSatisfy { $0 == .array([]) })

        let members = "[" + Array(repeating: #"{"":0}"#, count: elements).joined(separator: ",") + "]"
        guard case .array(let parsedMembers) = try parser.parse(members) else { Issue.record("not an array"); return }
        #expect(parsedMembers.count == elements)

        // 256 levels, the most allowed: the last an object.
        func open(_ levels: Int) -> String { String(repeating: "[", count: levels - 1) + "{" }
        for cutOff in [open(256), open(256) + #""key":"#, numbers.dropLast() + "," + open(255) + #""key":"#] {
            #expect {
                _ = try parser.parse(String(cutOff))
            } throws: { error in
                (error as? JSONError)?.code == .unexpectedEnd
            }
        }
    }

    @Test("escapes decode: runs, \\u code points, surrogate pairs, and lone surrogates as U+FFFD")
    func unicodeEscapes() throws {
        let cases: [(json: String, text: String)] = [
            (#""caf\u00e9""#, "café"),
            (#""smile \ud83d\ude00!""#, "smile \u{1F600}!"),
            (#""lone \ud83d end""#, "lone \u{FFFD} end"),
            (#""pair? \ud83d\u0041""#, "pair? \u{FFFD}A"),
            (#""a\nb\tc\"d\\e\/f\b\f\r""#, "a\nb\tc\"d\\e/f\u{08}\u{0C}\r"),
            (#""\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9 long enough to span several SIMD blocks""#,
             "éééééééé long enough to span several SIMD blocks"),
        ]
        for (json, text) in cases {
            #expect(try parser.parse(json) == .string(text), "\(json)")
        }
    }

    @Test("a bad escape is a syntax error at the offending byte", arguments: [
        (#""ab\u12g4""#, 7), (#""\u12""#, 3), (#""x\q""#, 3), (#""x\é""#, 3),
    ])
    func badEscapes(input: String, offset: Int) {
        #expect {
            _ = try parser.parse(input)
        } throws: { error in
            guard let error = error as? JSONError else { return false }
            return error.code == .syntax && error.offset == offset
        }
    }

    @Test("raw control characters inside strings are refused")
    func refusesControlCharacters() {
        #expect { _ = try parser.parse("\"a\u{01}b\"") } throws: { ($0 as? JSONError)?.code == .syntax }
    }

    @Test("strings that are not UTF-8 are refused at the first bad byte, in values and keys, long or short", arguments: [
        ([0x22, 0x61, 0xFF, 0x62, 0x22], 2),  // a byte that never appears in UTF-8
        ([0x22, 0x80, 0x22], 1),  // a continuation byte with no lead
        ([0x22, 0xC0, 0xAF, 0x22], 1),  // an overlong '/'
        ([0x22, 0xE0, 0x80, 0xAF, 0x22], 1),  // an overlong three-byte form
        ([0x22, 0xED, 0xA0, 0x80, 0x22], 1),  // an encoded surrogate (U+D800)
        ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1),  // above U+10FFFF
        ([0x22, 0x63, 0x61, 0x66, 0xE9, 0x22], 4),  // Latin-1 "café"
        ([0x22, 0xE2, 0x82, 0x22], 1),  // a three-byte sequence cut short by the quote
        ([0x22, 0xE2, 0x82], 1),  // ... and by the end of the input
        ([0x7B, 0x22, 0x6B, 0xFF, 0x22, 0x3A, 0x31, 0x7D], 3),  // in a key
        ([0x22] + [UInt8](repeating: 0x61, count: 21) + [0xC3, 0x28, 0x22], 22),  // found by the 16-byte scan
    ])
    func refusesInvalidUTF8(bytes: [UInt8], offset: Int) {
        #expect {
            _ = try parser.parse(bytes)
        } throws: { error in
            guard let error = error as? JSONError else { return false }
            return error.code == .invalidUTF8 && error.offset == offset && error.message.contains("valid UTF-8")
        }
    }

    @Test("every well-formed UTF-8 sequence is kept, at the edges of each length and inside long text")
    func acceptsUTF8() throws {
        let edges = ["\u{80}", "\u{7FF}", "\u{800}", "\u{D7FF}", "\u{E000}", "\u{FFFF}", "\u{10000}", "\u{10FFFF}"]
        for text in edges + ["Grüße, 世界 🏃‍♀️ done", String(repeating: "é€😀a", count: 20)] {
            #expect(try parser.parse("\"\(text)\"") == .string(text), "\(Array(text.unicodeScalars))")
            #expect(try parser.parse(#"{"\#(text)":1}"#).objectValue?.keys == [text])
        }
    }

    @Test("the decoder reads the types JSON has no form for, nested and at the top level")
    func decoderSpecialTypes() throws {
        struct Everything: Decodable, Equatable {
            var text: String, whole: Int, wide: Int64, flag: Bool, real: Double
            var link: URL, when: Date, epoch: Date, bytes: Data, raw: RawJSON, object: JSONObject
        }
        let json = #"""
            {"text": "a\u00e9", "whole": -7, "wide": 9007199254740993, "flag": true, "real": 2.5,
             "link": "https://cdn.example.com/a.png?Expires=1", "when": "2026-11-01T00:14:49.394479Z", "epoch": 1.5,
             "bytes": "aGk=", "raw": [1, "x", null], "object": {"k": {"n": 1}}}
            """#
        let decoded = try RawJSONDecoder().decode(Everything.self, from: Data(json.utf8))
        #expect(decoded.text == "a\u{e9}")
        #expect(decoded.whole == -7)
        #expect(decoded.wide == 9_007_199_254_740_993)
        #expect(decoded.flag && decoded.real == 2.5)
        #expect(decoded.link.absoluteString == "https://cdn.example.com/a.png?Expires=1")
        #expect(decoded.when == RFC3339.date(from: "2026-11-01T00:14:49.394479Z"))
        #expect(decoded.epoch == Date(timeIntervalSince1970: 1.5))
        #expect(decoded.bytes == Data("hi".utf8))
        #expect(decoded.raw == (try JSONParser().parse(#"[1, "x", null]"#)))
        #expect(decoded.object["k"]?["n"]?.intValue == 1)

        let decoder = RawJSONDecoder()
        #expect(try decoder.decode(String.self, from: Data(#""top""#.utf8)) == "top")
        #expect(try decoder.decode(Int.self, from: Data("42".utf8)) == 42)
        #expect(try decoder.decode(Bool.self, from: Data("false".utf8)) == false)
        #expect(try decoder.decode(URL.self, from: Data(#""https://x.example/""#.utf8)).host == "x.example")
        #expect(try decoder.decode([Date].self, from: Data("[0]".utf8)) == [Date(timeIntervalSince1970: 0)])
    }

    @Test("the decoder's special types fail with the field's path", arguments: [
        (#"{"link": ""}"#, "link", "invalid URL"),
        (#"{"when": "yesterday"}"#, "when", "invalid RFC 3339 date"),
        (#"{"when": true}"#, "when", "expected a date string"),
        (#"{"bytes": "***"}"#, "bytes", "invalid base64"),
        (#"{"object": [1]}"#, "object", "expected an object"),
    ])
    func decoderSpecialTypeFailures(json: String, field: String, reason: String) {
        struct Fields: Decodable { var link: URL?, when: Date?, bytes: Data?, object: JSONObject? }
        #expect {
            _ = try RawJSONDecoder().decode(Fields.self, from: Data(json.utf8))
        } throws: { error in
            let context: DecodingError.Context
            switch error as? DecodingError {
            case .dataCorrupted(let found)?, .typeMismatch(_, let found)?: context = found
            default: return false
            }
            return context.codingPath.map(\.stringValue) == [field] && context.debugDescription.contains(reason)
        }
    }

    @Test("huge numbers parse, keep their text, and fail only when read as a number type")
    func hugeNumbers() throws {
        let json = try parser.parse(#"{"n": 1e999999, "i": 99999999999999999999999}"#)
        #expect(json["n"]?.description == "1e999999")
        #expect(json["n"]?.doubleValue == nil)
        #expect(json["i"]?.intValue == nil)
        struct Payload: Decodable { var i: Int }
        #expect {
            _ = try RawJSONDecoder().decode(Payload.self, from: json)
        } throws: { error in
            guard case DecodingError.dataCorrupted(let context)? = error as? DecodingError else { return false }
            return context.codingPath.first?.stringValue == "i" && context.debugDescription.contains("fits in Int")
        }
    }

    @Test("equality of objects ignores key order, numbers compare by value")
    func equality() throws {
        #expect(try parser.parse(#"{"a":1,"b":[2.0]}"#) == (try parser.parse(#"{"b":[2],"a":1.0}"#)))
        #expect(try parser.parse(#"{"a":1}"#) != (try parser.parse(#"{"a":"1"}"#)))
    }
}
