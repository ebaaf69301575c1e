import ChatModels
import Foundation
import Logging

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The app's `custom_action_handler_url`: where the messages of custom commands, and the
/// actions users take on them, are posted for the app to answer. `{type}` in the URL is
/// replaced by the command's name.
struct CustomActionHandler: Sendable {
    /// What the handler answered.
    enum Reply: Sendable, Equatable {
        /// `{"message": {...}}`: the message as the handler rewrote it; its `type` says what
        /// becomes of it (`regular`, `ephemeral` or `error`).
        case message(JSONObject, type: String)
        /// `{"message": null}`: the message is dropped.
        case remove
        /// The handler could not be reached or answered something else; why, for the user.
        case failed(String)
    }

    /// The URL as set, `{type}` and all.
    var template: String
    let apiKey: String
    let signer: PayloadSigner
    let timeout: Duration
    let logger: Logger

    /// The handler of the app whose settings are `settings`; nil when none is set.
    init?(_ settings: JSONObject, apiKey: String, signer: PayloadSigner, timeout: Duration, logger: Logger) {
        guard let text = settings["custom_action_handler_url"]?.stringValue, !text.isEmpty else { return nil }
        template = text
        self.apiKey = apiKey
        self.signer = signer
        self.timeout = timeout
        self.logger = logger
    }

    /// Refuses a value the service would refuse, naming the setting and what it takes.
    static func check(_ value: RawJSON) throws(APIError) {
        guard let text = value.stringValue else {
            throw .input("UpdateApp", "custom_action_handler_url must be a string (an empty one turns custom commands off)")
        }
        let concrete = text.replacingOccurrences(of: "{type}", with: "type")
        guard text.isEmpty || WebhookSettings.isPostable(concrete) else {
            throw .input(
                "UpdateApp",
                "custom_action_handler_url \"\(text)\" must be an http or https URL with a host, such as https://bots.example.com/commands/{type}")
        }
    }

    /// Posts `{message, user, form_data}` for `command` (signed as webhooks are: `X-Signature` is
    /// the hex HMAC-SHA256 of the body with the app secret) and reads the answer.
    func call(command: String, message: JSONObject, user: JSONObject?, formData: JSONObject?) async -> Reply {
        guard let url = URL(string: template.replacingOccurrences(of: "{type}", with: command)) else {
            return .failed("the app's custom_action_handler_url is not a URL")
        }
        var body: JSONObject = ["message": .object(message)]
        if let user { body["user"] = .object(user) }
        if let formData { body["form_data"] = .object(formData) }
        let json = JSONWriter.data(.object(body))
        let request = URLRequest.signedPost(to: url, json: json, apiKey: apiKey, signature: signer.signature(of: json), timeout: timeout)
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch let error as URLError where error.code == .timedOut {
            logger.warning("The custom command handler at \(url.absoluteString) did not answer within \(timeout)")
            return .failed("its handler did not answer within \(timeout)")
        } catch {
            logger.warning("The custom command handler at \(url.absoluteString) could not be reached: \(error.localizedDescription)")
            return .failed("its handler could not be reached")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            logger.warning("The custom command handler at \(url.absoluteString) answered \(status)")
            return .failed("its handler answered HTTP \(status)")
        }
        return Self.reply(data)
    }

    /// Reads a handler's answer.
    static func reply(_ data: Data) -> Reply {
        guard let parsed = try? JSONParser().parse(data), case .object(let object) = parsed, let message = object["message"] else {
            return .failed("its handler answered something other than {\"message\": …}")
        }
        if message.isNull { return .remove }
        guard case .object(let fields) = message else { return .failed("its handler answered a message that is not an object") }
        let type = fields["type"]?.stringValue ?? "regular"
        guard ["regular", "ephemeral", "error"].contains(type) else {
            return .failed("its handler answered message type \"\(type)\"; it may answer regular, ephemeral or error")
        }
        return .message(fields, type: type)
    }
}
