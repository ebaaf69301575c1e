import ChatModels
import Foundation

/// What a bot's before-send handler decides about a message nobody has seen yet: let it
/// through, replace it, or refuse it with the text its sender sees in its place.
public struct BeforeSendDecision: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        case pass
        case replace
        case reject
    }

    package let kind: Kind
    /// For a replacement, the fields that change (the service takes only its rewritable ones:
    /// text, i18n, show_in_channel, silent, attachments and custom fields); for a refusal, the
    /// text the sender sees.
    package let fields: JSONObject

    /// A decision of `kind` with `fields`.
    package init(kind: Kind, fields: JSONObject) {
        self.kind = kind
        self.fields = fields
    }

    /// Lets the message through as it was sent.
    public static let pass = Self(kind: .pass, fields: [:])

    /// Refuses the message: nothing is stored and nobody else sees it; its sender is answered an
    /// `error` message with `text` (why, and what to do about it).
    public static func reject(_ text: String) -> Self { Self(kind: .reject, fields: ["text": .string(text)]) }

    /// Stores the message with `text` (nil keeps it), `attachments` (attachment objects; nil
    /// keeps them, empty removes them all) and these custom fields in place of what was sent.
    public static func replace(text: String? = nil, attachments: [JSONObject]? = nil, extraData: [String: RawJSON] = [:]) -> Self {
        var fields = JSONObject(extraData.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        if let text { fields["text"] = .string(text) }
        if let attachments { fields["attachments"] = .array(attachments.map(RawJSON.object)) }
        return Self(kind: .replace, fields: fields)
    }

    /// Stores `message` as the handler changed it: its text, attachments, `show_in_channel`,
    /// `silent`, `i18n` and custom fields replace those sent; the service keeps the rest.
    public static func replace(_ message: Message) -> Self {
        guard case .object(let json) = message.json else { return .pass }
        var fields: JSONObject = [:]
        for key in ["text", "attachments", "show_in_channel", "silent", "i18n"] { if let value = json[key] { fields[key] = value } }
        for (key, value) in message.extraData { fields[key] = value }
        return Self(kind: .replace, fields: fields)
    }

    /// The text the sender sees, for a refusal.
    public var refusalText: String? { kind == .reject ? fields["text"]?.stringValue : nil }

    /// Whether the message goes through unchanged.
    public var isPass: Bool { kind == .pass }
}
