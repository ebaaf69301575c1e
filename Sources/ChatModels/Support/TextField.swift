@_spi(JSONEngine) import ChatJSON
import Foundation

/// A string field of a model read from a document: where its text lies in the document's bytes
/// until it is read, or the string itself once set.
///
/// Reading an event made a `String` for every text field of its message and users, most of which
/// a bot never looks at (an HTML rendering, avatars, names): a copy, a UTF-8 check and often an
/// allocation each. The bytes were checked when the document was indexed (valid UTF-8, valid
/// escapes) and the field's type when the model was read, so making the string later cannot fail;
/// each read of the field makes it again.
struct TextField: Sendable, Hashable {
    private enum Storage: Sendable, Hashable {
        case value(String?)
        case unread(start: UInt32, end: UInt32, escaped: Bool)
    }

    private let storage: Storage

    /// No text (a missing or `null` field).
    static let none = TextField(nil)

    /// A field holding `value`.
    init(_ value: String?) { storage = .value(value) }

    /// The string node `node` of a document, read later from the document's bytes.
    init(unread node: JSONNode) {
        storage = .unread(start: node.start, end: node.end, escaped: node.flag)
    }

    /// Whether the text is still in the document (so the model must keep the document).
    var isUnread: Bool {
        if case .unread = storage { return true }
        return false
    }

    /// The text, made from `source` (the document the field was read from) if it is still there.
    func value(in source: Data) -> String? {
        switch storage {
        case .value(let text):
            return text
        case .unread(let start, let end, let escaped):
            return source.withUnsafeBytes { bytes in
                let raw = UnsafeBufferPointer(start: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self) + Int(start), count: Int(end - start))
                // The escapes were checked when the document was indexed.
                return (try? JSONReader.text(raw, escaped: escaped, offset: Int(start))) ?? String(decoding: raw, as: UTF8.self)
            }
        }
    }
}

extension JSONReader {
    /// A string or `null` at `node`, left in the document.
    func readOptionalText(_ node: Int) throws(JSONError) -> TextField {
        switch kind(node) {
        case .null: return .none
        case .string: return TextField(unread: nodes[node])
        default: throw mismatch(node, expected: "a string")
        }
    }

    /// A string at `node`, left in the document.
    func readText(_ node: Int) throws(JSONError) -> TextField {
        guard kind(node) == .string else { throw mismatch(node, expected: "a string") }
        return TextField(unread: nodes[node])
    }
}
