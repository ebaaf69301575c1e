import ChatClient
import ChatModels

extension Message {
    /// `text  [workout]  buttons: Log (log), Cancel (cancel)`: a custom command's answer as the
    /// CLI shows it.
    static func describeWithButtons(_ message: Message) -> String {
        let types = message.attachments.map(\.type.rawValue).filter { $0 != "text" }
        let buttons = message.buttons.map { "\($0.text ?? $0.value ?? "") (\($0.value ?? ""))" }
        return message.text + (types.isEmpty ? "" : "  [\(types.joined(separator: ", "))]")
            + (buttons.isEmpty ? "" : "  buttons: \(buttons.joined(separator: ", "))")
    }

    /// `text  [workout-summary]`: a message as `send`, `react` and `chat` show the bots' answers.
    var textAndAttachmentTypes: String {
        let types = attachments.map(\.type.rawValue)
        return text + (types.isEmpty ? "" : "  [\(types.joined(separator: ", "))]") + (poll.map { "  [poll: \($0.numberedOptions)]" } ?? "")
            + (sharedLocation.map { "  [\($0.summary)]" } ?? "")
    }

    /// The buttons on the message's attachments.
    var buttons: [AttachmentAction] {
        attachments.flatMap { attachment in
            (attachment.rawJSON["actions"]?.arrayValue ?? []).compactMap { action in
                action["name"]?.stringValue.map {
                    AttachmentAction(name: $0, text: action["text"]?.stringValue, style: action["style"]?.stringValue, value: action["value"]?.stringValue)
                }
            }
        }
    }
}

extension ChatClient {
    /// Presses the button with `value` on `message` (a custom command's answer to its sender
    /// alone), as `user` or the client's own user: the button, and what became of the message
    /// (nil: removed). Throws ``ButtonNotFound`` when the message has no such button.
    func press(_ value: String, on message: Message, as user: String? = nil) async throws -> (button: AttachmentAction, result: Message?) {
        guard let button = message.buttons.first(where: { $0.value == value }) else {
            throw ButtonNotFound(value: value, buttons: message.buttons.compactMap(\.value))
        }
        return (button, try await runMessageAction(message.id, formData: [button.name: value], as: user))
    }
}

/// A press named a value no button of the answer has.
struct ButtonNotFound: Error {
    /// The value pressed.
    let value: String
    /// The values of the answer's buttons.
    let buttons: [String]

    /// `--press X: the answer has no button of that value; its buttons: …`, naming the way it
    /// was pressed (`--press`, `bots chat`'s `:press`).
    func message(pressedWith option: String = "--press") -> String {
        "\(option) \(value): the answer has no button of that value; its buttons: \(buttons.joined(separator: ", "))"
    }
}

extension Poll {
    /// `1 Sat, 2 Sun`: the options as `chat` shows them and `:vote` takes them.
    var numberedOptions: String { options.enumerated().map { "\($0.offset + 1) \($0.element.text)" }.joined(separator: ", ") }
}
