import ChatModels
import Foundation

/// What becomes of a custom command's message: posted for everyone, shown to its sender alone
/// (with buttons that ask the bot again), refused with a reason, or dropped.
public struct CustomCommandReply: Sendable {
    package enum Kind: String, Sendable {
        case post = "regular"
        case ephemeral
        case error
        case remove
    }

    package let kind: Kind
    /// Nil keeps the text as the user typed it.
    package let text: String?
    package let attachments: [AnyAttachmentPayload]
    package let extraData: [String: RawJSON]

    /// Posts the message for everyone: with `text` (nil keeps what the user typed) and
    /// `attachments` (typed payloads, or local files, uploaded first) in place of theirs. With
    /// no `attachments` it keeps theirs, or, for a button, what the ephemeral message showed,
    /// without its buttons.
    public static func post(text: String? = nil, attachments: [AnyAttachmentPayload] = [], extraData: [String: RawJSON] = [:]) -> Self {
        Self(kind: .post, text: text, attachments: attachments, extraData: extraData)
    }

    /// Shows `text` to the sender alone, with `buttons` under it: pressing one asks the bot
    /// again, with the button's `name` and `value` in ``CustomCommandRequest/formData``.
    public static func ephemeral(text: String, attachments: [AnyAttachmentPayload] = [], buttons: [AttachmentAction] = []) -> Self {
        let buttonRow = buttons.isEmpty ? [] : [AnyAttachmentPayload(json: ["type": "text", "actions": .array(buttons.map(\.json))])]
        return Self(kind: .ephemeral, text: text, attachments: attachments + buttonRow, extraData: [:])
    }

    /// Refuses the message; the sender sees `text` in its place, nothing is posted.
    public static func error(_ text: String) -> Self { Self(kind: .error, text: text, attachments: [], extraData: [:]) }

    /// Drops the message (a Cancel button): nothing is posted, and an ephemeral message goes away.
    public static let remove = Self(kind: .remove, text: nil, attachments: [], extraData: [:])
}

extension AttachmentAction {
    /// A button: pressing it sends `name: value` to the command's bot. `style` is `primary` for
    /// the one to press, `default` otherwise.
    public static func button(_ text: String, name: String = "action", value: String, style: String = "default") -> Self {
        AttachmentAction(name: name, text: text, style: style, type: "button", value: value)
    }

    /// The button as attachments carry it.
    var json: RawJSON {
        var object: JSONObject = ["name": .string(name), "type": .string(type ?? "button")]
        if let text { object["text"] = .string(text) }
        if let style { object["style"] = .string(style) }
        if let value { object["value"] = .string(value) }
        return .object(object)
    }
}
