import ChatBotKit
import ChatClient
import ChatLocking
import ChatModels
import CoreMetrics
import Crypto
import Foundation
import Logging
import Metrics

/// Where the app's custom command requests come in (its `custom_action_handler_url`) and the
/// bots that registered those commands answer them. One intake serves an app (its key and
/// secret); a `BotService` configured with it registers its bot's custom commands at start.
///
/// Unlike a webhook event, a request waits for its answer: the user who sent `/ticket …` sees
/// nothing until the bot has replied, and the service gives up after a few seconds, so a
/// handler should answer quickly and leave long work for later.
public final class CustomCommandIntake: CustomCommandRegistry {
    /// The answer to one request: the HTTP status and the JSON body.
    public struct Answer: Sendable, Equatable {
        /// 200 with a message (or `null`), or 4xx for a request that is not the service's.
        public let status: Int
        /// `{"message": …}`, or `{"code", "message"}` for a refusal.
        public let body: Data
    }

    private struct Registration: Sendable {
        let bot: String
        let command: CustomCommand
        let client: ChatClient
    }

    /// The app's key (requests for another app are refused).
    public let apiKey: String
    /// The largest body taken.
    public let maximumBodySize: Int
    /// How long a handler (and the uploads of its reply) may take before the sender is told the
    /// command took too long and the handler is cancelled: under the service's own wait (6 s on
    /// the dev server), so that the sender reads why rather than that the handler did not answer.
    public let answerDeadline: Duration
    private let signingKey: SymmetricKey
    private let registrations = Locked<[String: Registration]>([:])
    private let logger: Logger
    private let outcomes: [String: Counter]

    /// What the outcomes of `chatbotkit_custom_commands_total` are: the reply's kind, or why there was none.
    static let outcomes = ["regular", "ephemeral", "error", "remove", "unknown_command", "failed", "timed_out", "refused"]

    /// An intake for the app with `apiKey` and `apiSecret`.
    public init(
        apiKey: String, apiSecret: String, maximumBodySize: Int = 1 << 20, answerDeadline: Duration = .seconds(5),
        metricsFactory: (any MetricsFactory)? = nil, logger: Logger = Logger(label: "chatbotkit.commands")
    ) {
        self.apiKey = apiKey
        self.answerDeadline = answerDeadline
        signingKey = WebhookDelivery.signingKey(apiSecret)
        self.maximumBodySize = maximumBodySize
        self.logger = logger
        let factory = metricsFactory ?? MetricsSystem.factory
        outcomes = Dictionary(
            uniqueKeysWithValues: Self.outcomes.map { ($0, Counter(label: "chatbotkit_custom_commands_total", dimensions: [("outcome", $0)], factory: factory)) })
    }

    /// Answers `commands` with their handlers from now on, as bot `bot` (whose `client` the
    /// handlers get), in place of what `bot` registered before, at once. A command another bot
    /// answers already is refused, and nothing changes: the service sends each command to one
    /// address, and two bots cannot both answer it.
    public func register(_ commands: [CustomCommand], bot: String, client: ChatClient) throws(BotError) {
        try registrations.withLock { (registrations) throws(BotError) in
            if let clash = commands.first(where: { registrations[$0.definition.name].map { $0.bot != bot } ?? false }) {
                let other = registrations[clash.definition.name]?.bot ?? ""
                throw BotError(
                    code: .configuration,
                    message: "bots \(other) and \(bot) both answer the custom command /\(clash.definition.name); a command has one handler, so rename one")
            }
            registrations = registrations.filter { $0.value.bot != bot }
            for command in commands { registrations[command.definition.name] = Registration(bot: bot, command: command, client: client) }
        }
    }

    /// Stops answering bot `bot`'s commands (they are answered as unknown until it registers again).
    public func unregister(bot: String) {
        registrations.withLock { $0 = $0.filter { $0.value.bot != bot } }
    }

    /// The names of the commands answered now.
    public var commandNames: [String] { registrations.withLock { $0.keys.sorted() } }

    /// Checks and answers one request: 401/413/415/400 for one that is not the service's (with
    /// the ``WebhookError`` code), otherwise 200 with what the bot replied. A command no bot
    /// answers, or whose handler throws, is answered as an `error` message the user sees.
    public func receive(body: Data, headers: [String: String]) async -> Answer {
        let request: CustomActionRequest
        do throws(WebhookError) {
            let json = try WebhookDelivery.verifiedJSON(body: body, headers: headers, apiKey: apiKey, signingKey: signingKey, maximumSize: maximumBodySize)
            do throws(JSONError) {
                request = try CustomActionRequest(jsonData: json)
            } catch {
                throw WebhookError(code: .notACommandRequest, message: "the body is not a custom command request: \(error)")
            }
        } catch {
            outcomes["refused"]?.increment()
            logger.warning("Refused a custom command request: \(error.message)", metadata: ["code": "\(error.code)"])
            return Answer(status: error.httpStatus, body: error.jsonBody)
        }
        let name = request.message.command ?? ""
        guard let registration = registrations.withLock({ $0[name] }) else {
            outcomes["unknown_command"]?.increment()
            logger.warning("No bot answers the custom command /\(name)")
            return answer(request.messageJSON, .error("No bot answers /\(name) here."))
        }
        let message = request.message
        let commandRequest = CustomCommandRequest(
            command: name, arguments: message.args ?? "", message: message, user: request.user, formData: request.formData,
            client: registration.client)
        do {
            let answered: (CustomCommandReply, [JSONObject])? = try await withDeadline(answerDeadline) {
                try await Self.reply(to: commandRequest, registration)
            } onTimeout: {
                nil
            }
            guard let (reply, attachments) = answered else {
                outcomes["timed_out"]?.increment()
                logger.warning(
                    "Bot \(registration.bot) did not answer /\(name) within \(answerDeadline); its handler was cancelled",
                    metadata: ["message_id": "\(message.id)"])
                return answer(request.messageJSON, .error("The /\(name) command took too long to answer; try again."))
            }
            outcomes[reply.kind.rawValue]?.increment()
            return answer(request.messageJSON, reply, attachments: attachments)
        } catch {
            outcomes["failed"]?.increment()
            logger.error("Bot \(registration.bot) could not answer /\(name): \(error)", metadata: ["message_id": "\(message.id)"])
            return answer(request.messageJSON, .error("The /\(name) command failed; the bot logged why."))
        }
    }

    /// The handler's reply and the attachment objects of what it uploads.
    private static func reply(to request: CustomCommandRequest, _ registration: Registration) async throws -> (CustomCommandReply, [JSONObject]) {
        let reply = try await registration.command.handler(request)
        var attachments: [JSONObject] = []
        if !reply.attachments.isEmpty, let cid = request.message.cid {
            let outgoing = OutgoingMessage(id: request.message.id, text: reply.text ?? request.message.text, attachments: reply.attachments)
            attachments = try await registration.client.attachmentObjects(for: outgoing, in: cid)
        }
        return (reply, attachments)
    }

    /// `{"message": …}`: the request's message as `reply` leaves it (its custom fields and
    /// everything the bot does not change as they came), or `null` to drop it.
    private func answer(_ message: JSONObject, _ reply: CustomCommandReply, attachments: [JSONObject] = []) -> Answer {
        guard reply.kind != .remove else { return Answer(status: 200, body: Data(#"{"message":null}"#.utf8)) }
        var message = message
        message["type"] = .string(reply.kind.rawValue)
        if let text = reply.text { message["text"] = .string(text) }
        if reply.kind == .error || !attachments.isEmpty || reply.kind == .ephemeral {
            message["attachments"] = .array(attachments.map(RawJSON.object))
        } else if let kept = message["attachments"]?.arrayValue {
            // Posted as it is: the sender's attachments, or what an ephemeral preview showed, but
            // not its buttons, which only ever act on an ephemeral message.
            message["attachments"] = .array(kept.filter { $0["actions"] == nil })
        }
        for (key, value) in reply.extraData { message[key] = value }
        return Answer(status: 200, body: JSONWriter.data(.object(["message": .object(message)])))
    }
}
