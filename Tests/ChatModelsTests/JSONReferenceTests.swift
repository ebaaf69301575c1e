import ChatModels
import ChatTestSupport
import Foundation
import Testing

/// Our parser against a reference: CPython's `json` module, made strict (UTF-8 only, no `NaN`
/// or `Infinity`). Thousands of documents, real events and grammar corners edited at random,
/// must be accepted by both or refused by both, and what both accept must read as the same
/// value. The property-based suite shows bad input never crashes; this shows it is never
/// silently accepted, and that good input loses nothing.
@Suite("JSON parser against CPython's json")
struct JSONReferenceTests {
    /// Small documents that reach every branch of the grammar.
    static let corners: [String] = [
        #"{"a":"\u00e9\ud83d\ude00","b":"\/\b\f\n\r\t\"\\"}"#, "[1,-0,0.5,1e10,1E-2,-1.5e+3,12345678901234567890123]",
        #"{"k":[true,false,null,{},[],""]}"#, #"{"é":"ü😀","x":{"y":{"z":[[[1]]]}}}"#, " 123 ", #""text""#, "[]", "{}",
    ]

    /// Byte strings the edits insert: structure, escapes, number and literal pieces, control
    /// bytes, invalid and overlong UTF-8, an encoded surrogate, a byte order mark.
    static let pieces: [[UInt8]] =
        ["{", "}", "[", "]", ":", ",", "\"", "\\", "\\u", "\\ud800", "\\udc00", "0", "-", ".", "e", "E", "+", "9", "true", "null",
         "tru", "nul", " ", "\t", "\n", "NaN", "Infinity", "01", "1.", ".5", "1e", "\"\\x\""].map { Array($0.utf8) }
        + [[0x00], [0x1F], [0x7F], [0x80], [0xC0, 0xAF], [0xC3, 0xA9], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xF0, 0x9F, 0x98, 0x80],
           [0xF4, 0x90, 0x80, 0x80], [0xFF], [0xEF, 0xBB, 0xBF]]

    /// Compares each line's document with our verdict; prints one line per disagreement and a
    /// summary. Documents whose reference value holds a lone surrogate are counted apart: we
    /// read those escapes as U+FFFD on purpose (JSONParserTests.unicodeEscapes).
    static let referenceScript = #"""
        import base64, json, sys

        def constant(name):
            raise ValueError(name)

        def lone_surrogate(value):
            if isinstance(value, str):
                return any(0xD800 <= ord(c) <= 0xDFFF for c in value)
            if isinstance(value, list):
                return any(lone_surrogate(item) for item in value)
            if isinstance(value, dict):
                return any(lone_surrogate(k) or lone_surrogate(v) for k, v in value.items())
            return False

        checked = accepted = surrogates = 0
        for line in open(sys.argv[1]):
            fields = line.rstrip("\n").split("\t")
            document = base64.b64decode(fields[0])
            try:
                reference = ("ok", json.loads(document.decode("utf-8"), parse_constant=constant))
            except (UnicodeDecodeError, ValueError, RecursionError):
                reference = ("err", None)
            checked += 1
            if reference[0] == "ok" and lone_surrogate(reference[1]):
                surrogates += 1
                continue
            if reference[0] != fields[1]:
                print("verdict", fields[1], "expected", reference[0], repr(document[:160]))
            elif reference[0] == "ok":
                accepted += 1
                ours = json.loads(base64.b64decode(fields[2]).decode("utf-8"))
                # == alone takes 1, 1.0 and true for one another; their dumps differ.
                if ours != reference[1] or json.dumps(ours) != json.dumps(reference[1]):
                    print("value", repr(document[:160]), "read as", repr(json.dumps(ours)[:160]))
        print(f"checked {checked} accepted {accepted} surrogates {surrogates}")
        """#

    /// A small deterministic generator, so a failure reproduces.
    struct SplitMix {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var value = state
            value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
            value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((value ^ (value >> 31)) % UInt64(bound))
        }
    }

    static func documents(count: Int) throws -> [[UInt8]] {
        var seeds = corners.map { Array($0.utf8) }
        let attachments = try Fixture.attachments()
        seeds.append(Array(try Fixture.messageNew(with: attachments)))
        for name in ["health-check.json", "connection-error.json"] { seeds.append(Array(try Fixture.data(name))) }
        var random = SplitMix(state: 2026)
        return (0..<count).map { index in
            var bytes = seeds[random.next(seeds.count)]
            guard index % 10 != 0 else { return bytes }
            for _ in 0...random.next(3) {
                let position = random.next(bytes.count + 1)
                switch random.next(3) {
                case 0 where !bytes.isEmpty: bytes.removeSubrange(position..<min(bytes.count, position + 1 + random.next(3)))
                case 1 where position < bytes.count: bytes[position] = UInt8(random.next(256))
                default: bytes.insert(contentsOf: pieces[random.next(pieces.count)], at: position)
                }
            }
            return bytes
        }
    }

    @Test("accepts and refuses what CPython's strict json does, and reads the same values")
    func agreesWithReference() throws {
        let documents = try Self.documents(count: 6_000)
        var lines = ""
        for document in documents {
            lines += Data(document).base64EncodedString()
            do {
                let value = try JSONParser().parse(document)
                lines += "\tok\t" + JSONWriter.data(value).base64EncodedString() + "\n"
            } catch {
                #expect(!error.message.isEmpty, "a refusal says why")
                lines += "\terr\n"
            }
        }
        let scratch = try ScratchFolder("json-reference")
        let input = try scratch.write(Data(lines.utf8), as: "verdicts.tsv")

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", Self.referenceScript, input.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let report = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "python3 failed: \(report)")

        let reportLines = report.split(separator: "\n").map(String.init)
        let disagreements = reportLines.filter { !$0.hasPrefix("checked ") }
        #expect(disagreements.isEmpty, "\(disagreements.count) disagreements:\n\(disagreements.prefix(10).joined(separator: "\n"))")
        let summary = try #require(reportLines.last).split(separator: " ").compactMap { Int($0) }
        try #require(summary.count == 3, "\(report)")
        #expect(summary[0] == documents.count)
        // Both sides of the grammar are exercised: many documents are accepted, many refused.
        #expect(summary[1] > documents.count / 10)
        #expect(summary[1] < documents.count * 9 / 10)
    }
}
