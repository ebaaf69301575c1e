@_spi(JSONEngine) import ChatJSON
import Foundation

extension ChatMessageAttachment where Payload == Data {
    /// A type-erased attachment from its JSON object, classified as Stream does: `og_scrape_url`
    /// makes it a link preview; otherwise its `type` string; otherwise `.unknown`.
    public init(id: AttachmentId, json: JSONObject) {
        self.init(id: id, type: AttachmentClassifier.classify(json), payload: JSONWriter.data(.object(json)))
    }

    /// The attachment's JSON object (parsed from the bytes on each call).
    public var rawJSON: JSONObject {
        (try? JSONParser().parse(payload).objectValue) ?? JSONObject()
    }

    /// The `type` string as sent (a link preview keeps its wire type here, e.g. `video`).
    public var wireType: String? { rawJSON["type"]?.stringValue }

    /// Decodes the payload as `P`, reporting exactly which field failed and why.
    ///
    /// The attachment's type must be `P.type`; a mismatch is a failure too. Inlinable so that
    /// it is specialized for the caller's payload type (the failure paths are not).
    @inlinable
    public func decode<P: AttachmentPayload>(_ payloadType: P.Type) -> Result<ChatMessageAttachment<P>, AttachmentDecodingFailure> {
        guard type == P.type else { return .failure(typeMismatch(decoding: P.type, as: "\(P.self)")) }
        do {
            let decoded = try RawJSONDecoder().decode(P.self, from: payload)
            return .success(ChatMessageAttachment<P>(id: id, type: type, payload: decoded, uploadingState: uploadingState))
        } catch {
            return .failure(failure(error, decodingAs: "\(P.self)"))
        }
    }

    /// The failure for an attachment of another type than the payload's.
    @usableFromInline
    func typeMismatch(decoding expected: AttachmentType, as payloadType: String) -> AttachmentDecodingFailure {
        AttachmentDecodingFailure(
            attachmentId: id, type: type, payloadType: payloadType, fieldPath: "type",
            reason: "attachment type is \(type.rawValue), \(payloadType) decodes \(expected.rawValue)", rawData: payload)
    }

    /// The failure for an error thrown while decoding, with the field path it names.
    @usableFromInline
    func failure(_ error: any Error, decodingAs payloadType: String) -> AttachmentDecodingFailure {
        let (path, reason) = (error as? DecodingError).map(AttachmentDecodingFailure.describe) ?? ("", "\(error)")
        return AttachmentDecodingFailure(
            attachmentId: id, type: type, payloadType: payloadType, fieldPath: path, reason: reason, rawData: payload)
    }

    /// The typed attachment if this attachment is of `P.type` and decodes; `nil` otherwise
    /// (Stream's `attachment(payloadType:)`).
    public func attachment<P: AttachmentPayload>(payloadType: P.Type) -> ChatMessageAttachment<P>? {
        try? decode(payloadType).get()
    }
}

extension ChatMessageAttachment where Payload: AttachmentPayload {
    /// The type-erased form: the payload encoded flat, with `type` first.
    public func asAnyAttachment() throws -> AnyChatMessageAttachment {
        let object = try AttachmentEncoding.object(for: payload, type: type)
        return AnyChatMessageAttachment(id: id, type: type, payload: JSONWriter.data(.object(object)), uploadingState: uploadingState)
    }
}

/// Decides the ``AttachmentType`` of a raw attachment.
enum AttachmentClassifier {
    enum Key: String, CaseIterable, Sendable {
        case type
        case ogScrapeURL = "og_scrape_url"
    }
    static let keys = KeyTable<Key>()

    /// The built-in types' wire values, matched on their bytes so that no string is made for
    /// them.
    enum BuiltInType: String, CaseIterable, Sendable {
        case image, video, audio, file, voiceRecording, giphy
    }
    static let builtInTypes = KeyTable<BuiltInType>()

    static func classify(_ reader: JSONReader, _ object: Int) -> AttachmentType {
        var typeNode: Int?
        for (keyNode, value) in reader.members(object) {
            switch key(reader, keyNode) {
            case .ogScrapeURL?: return .linkPreview
            // The last non-empty string wins; an empty or non-string `type` is passed over.
            case .type?: if reader.kind(value) == .string, !reader.range(value).isEmpty { typeNode = value }
            case nil: continue
            }
        }
        guard let typeNode else { return .unknown }
        if let builtIn = builtInTypes.match(reader, typeNode) { return AttachmentType(rawValue: builtIn.rawValue) }
        guard let text = try? reader.string(typeNode), !text.isEmpty else { return .unknown }
        return AttachmentType(rawValue: text)
    }

    /// `type` or `og_scrape_url` at `keyNode`, or nil. By length first: most of an
    /// attachment's keys have neither length, and a length is one comparison.
    @inline(__always)
    private static func key(_ reader: JSONReader, _ keyNode: Int) -> Key? {
        // A key with escapes is unescaped by the table.
        guard let bytes = reader.keyBytes(keyNode), let start = bytes.baseAddress else { return keys.match(reader, keyNode) }
        let raw = UnsafeRawPointer(start)
        switch bytes.count {
        case 4:
            return raw.loadUnaligned(as: UInt32.self) == typeWord ? .type : nil
        case 13:
            // Its first eight bytes and its last eight (which overlap) are all thirteen.
            let matches = raw.loadUnaligned(as: UInt64.self) == ogScrapeURLWords.head
                && raw.loadUnaligned(fromByteOffset: 5, as: UInt64.self) == ogScrapeURLWords.tail
            return matches ? .ogScrapeURL : nil
        default:
            return nil
        }
    }

    private static let typeWord = word(Key.type.rawValue, at: 0, as: UInt32.self)
    private static let ogScrapeURLWords = (
        head: word(Key.ogScrapeURL.rawValue, at: 0, as: UInt64.self), tail: word(Key.ogScrapeURL.rawValue, at: 5, as: UInt64.self)
    )

    /// The bytes of `text` from `offset` as a word, in memory order (as loaded from a document).
    private static func word<Word: FixedWidthInteger>(_ text: String, at offset: Int, as: Word.Type) -> Word {
        Array(text.utf8).withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: Word.self) }
    }

    static func classify(_ object: JSONObject) -> AttachmentType {
        if object.contains("og_scrape_url") { return .linkPreview }
        if let text = object["type"]?.stringValue, !text.isEmpty { return AttachmentType(rawValue: text) }
        return .unknown
    }
}

/// Shared encoding of a payload into its flat attachment object.
enum AttachmentEncoding {
    /// The attachment object of `payload`: `type` first, then the payload's fields. A link
    /// preview keeps the wire `type` it arrived with (kept in its extra data), if any.
    static func object<P: AttachmentPayload>(for payload: P, type: AttachmentType) throws -> JSONObject {
        let encoded = try RawJSONEncoder().encode(payload).objectValue ?? [:]
        var object = JSONObject()
        if type != .linkPreview {
            object["type"] = .string(type.rawValue)
        } else if let wireType = encoded["type"] {
            object["type"] = wireType
        }
        for (key, value) in encoded where key != "type" { object[key] = value }
        return object
    }
}
