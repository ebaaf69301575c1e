@_spi(JSONEngine) import ChatJSON
import Foundation

/// What the service posts to the app's `custom_action_handler_url`: the message of a custom
/// command as it is being sent (or the ephemeral message a button was pressed on), the user,
/// and the pressed button's `form_data`.
///
/// Read in one pass over the bytes: the message typed and, for the answer, as the JSON it came
/// in (custom fields and all).
public struct CustomActionRequest: Sendable {
    /// The message.
    public var message: Message
    /// The message's JSON as sent; the handler's answer is this, changed.
    public var messageJSON: JSONObject
    /// Who sent it (or pressed the button), if the request says.
    public var user: User?
    /// The pressed button's name and value (`["action": "confirm"]`); empty when the command was
    /// just sent. Numbers and booleans are given as their JSON text.
    public var formData: [String: String]

    /// Reads a request; a body without a `message` object, or with a wrong-typed known field,
    /// is an error naming it.
    public init(jsonData: Data) throws(JSONError) {
        self = try JSONReader.read(jsonData) { reader throws(JSONError) in try CustomActionRequest(reader: reader, node: 0) }
    }

    init(reader: JSONReader, node: Int) throws(JSONError) {
        let object = try reader.readObject(node)
        guard let messageNode = reader.member(object, "message"), !reader.isNull(messageNode) else { throw .missing("message") }
        do throws(JSONError) {
            message = try Message(reader: reader, node: messageNode)
            guard case .object(let json) = try reader.rawJSON(messageNode) else { throw JSONError.missing("message") }
            messageJSON = json
        } catch {
            throw error.prefixed("message")
        }
        user = nil
        if let userNode = reader.member(object, "user") {
            do throws(JSONError) { try reader.readOptionalModel(into: &user, userNode) } catch { throw error.prefixed("user") }
        }
        formData = [:]
        if let formNode = reader.member(object, "form_data"), case .object(let fields) = try reader.rawJSON(formNode) {
            for (key, value) in fields {
                switch value {
                case .string(let text): formData[key] = text
                case .bool, .number: formData[key] = JSONWriter.string(value)
                default: continue
                }
            }
        }
    }
}
