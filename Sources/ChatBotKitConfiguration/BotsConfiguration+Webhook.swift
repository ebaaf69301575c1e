import ChatBotKit
import ChatModels

extension BotsConfiguration {
    /// Where `bots run` takes the app's webhook requests (`webhook:` in bots.yaml), for the
    /// bots with `events: webhook`:
    ///
    /// ```yaml
    /// webhook:
    ///   host: 127.0.0.1   # the default; 0.0.0.0 behind a proxy on another machine
    ///   port: 8789        # 0 picks a free one
    ///   path: /webhook
    ///   commands_path: /commands   # custom commands: commands_path/{type}
    ///   commands_deadline: 5s      # a command handler's time to answer
    ///   before_send_path: /before-send   # the Before Message Send hook
    /// ```
    ///
    /// The same server takes the requests of the bots' custom commands (the app's
    /// `custom_action_handler_url`) at `commands_path/{type}`, and the app's Before Message Send
    /// requests (its `before_message_send_hook_url`) at `before_send_path`. With the embedded dev server,
    /// `bots run` points the app's `webhook_url` and `custom_action_handler_url` here itself; on
    /// the hosted service, set them (Dashboard or `PATCH /app`) to the public https addresses
    /// that reach them.
    public struct WebhookEndpoint: Sendable, Hashable {
        /// Address to bind.
        public var host: String
        /// Port (0 picks a free one).
        public var port: Int
        /// The path the requests are posted to.
        public var path: String
        /// The path custom command requests are posted under (`commands_path/{type}`).
        public var commandsPath: String
        /// How long a custom command handler has to answer before its sender is told it took
        /// too long (`CustomCommandIntake.answerDeadline`): under the 6 s the service waits.
        public var commandsDeadline: Duration
        /// The path Before Message Send requests are posted to.
        public var beforeSendPath: String

        /// How long the service waits for a custom command's answer: a `commands_deadline` must
        /// be shorter, or the sender hears the service's timeout instead of the bot's.
        public static let serviceCommandWait = Duration.seconds(6)

        /// An endpoint; by default 127.0.0.1:8789 at /webhook, custom commands at /commands,
        /// answered within 5 s.
        public init(
            host: String = "127.0.0.1", port: Int = 8789, path: String = "/webhook", commandsPath: String = "/commands",
            commandsDeadline: Duration = .seconds(5), beforeSendPath: String = "/before-send"
        ) {
            self.beforeSendPath = beforeSendPath
            self.host = host
            self.port = port
            self.path = path
            self.commandsPath = commandsPath
            self.commandsDeadline = commandsDeadline
        }
    }

    /// Where a bot's events come from (`events:` of a bot).
    public enum EventTransport: String, Sendable, Hashable {
        /// Its own WebSocket connection (the default).
        case websocket
        /// The app's webhook requests, taken at `webhook:`.
        case webhook
    }

    static func parseWebhook(_ node: ConfigNode?, embedded: Embedded, server: Server, metrics: MetricsEndpoint?) throws(ConfigurationError)
        -> WebhookEndpoint?
    {
        guard let node else { return nil }
        try node.allowOnly(["host", "port", "path", "commands_path", "commands_deadline", "before_send_path"])
        var endpoint = WebhookEndpoint()
        if let host = node["host"] {
            endpoint.host = try host.string()
            guard !endpoint.host.isEmpty else { throw host.error(.badValue, "webhook.host is empty; leave it out for 127.0.0.1") }
        }
        if let path = node["path"] {
            endpoint.path = try path.string()
            guard endpoint.path.hasPrefix("/"), !endpoint.path.contains("?"), !endpoint.path.contains(" ") else {
                throw path.error(.badValue, "webhook.path must be a path such as /webhook, found \"\(endpoint.path)\"")
            }
        }
        if let path = node["commands_path"] {
            endpoint.commandsPath = try path.string()
            guard endpoint.commandsPath.hasPrefix("/"), !endpoint.commandsPath.contains("?"), !endpoint.commandsPath.contains(" "),
                !endpoint.commandsPath.contains("{")
            else {
                throw path.error(.badValue, "webhook.commands_path must be a path such as /commands, found \"\(endpoint.commandsPath)\"")
            }
            guard endpoint.commandsPath != endpoint.path else {
                throw path.error(.badValue, "webhook.commands_path is webhook.path (\(endpoint.path)); give custom commands a path of their own")
            }
        }
        if let path = node["before_send_path"] {
            endpoint.beforeSendPath = try path.string()
            guard endpoint.beforeSendPath.hasPrefix("/"), !endpoint.beforeSendPath.contains("?"), !endpoint.beforeSendPath.contains(" ") else {
                throw path.error(.badValue, "webhook.before_send_path must be a path such as /before-send, found \"\(endpoint.beforeSendPath)\"")
            }
            guard endpoint.beforeSendPath != endpoint.path, !endpoint.beforeSendPath.hasPrefix(endpoint.commandsPath + "/"),
                endpoint.beforeSendPath != endpoint.commandsPath
            else {
                throw path.error(.badValue, "webhook.before_send_path \(endpoint.beforeSendPath) is taken by the webhook or the custom commands; give it a path of its own")
            }
        }
        if let deadline = node["commands_deadline"] {
            endpoint.commandsDeadline = try deadline.duration()
            // The duration itself is positive (`duration()` refuses 0s).
            guard endpoint.commandsDeadline < WebhookEndpoint.serviceCommandWait else {
                throw deadline.error(
                    .badValue,
                    "webhook.commands_deadline must be less than 6s, the time the service waits for an answer; "
                        + "found \(DurationText.format(endpoint.commandsDeadline))")
            }
        }
        if let port = node["port"] {
            endpoint.port = try port.int()
            guard (0...65535).contains(endpoint.port) else { throw port.error(.badValue, "webhook.port must be 0...65535") }
            if endpoint.port != 0, server.url == nil, endpoint.port == embedded.port {
                throw port.error(.badValue, "webhook.port \(endpoint.port) is the embedded dev server's port; give the webhook a port of its own")
            }
            if endpoint.port != 0, endpoint.port == metrics?.port {
                throw port.error(.badValue, "webhook.port \(endpoint.port) is metrics.port; give the webhook a port of its own")
            }
        }
        return endpoint
    }

    /// A bot's `events:`; checked against the file's `webhook:` and `scale_out:` sections.
    static func parseEvents(_ node: ConfigNode?, bot name: String, webhook: WebhookEndpoint?, scaledOut: Bool) throws(ConfigurationError)
        -> EventTransport
    {
        guard let node else { return .websocket }
        let text = try node.string()
        guard let transport = EventTransport(rawValue: text.lowercased()) else {
            throw node.error(.badValue, "\(node.path) must be websocket or webhook, found \"\(text)\"")
        }
        if transport == .webhook {
            guard webhook != nil else {
                throw node.error(
                    .badValue, "bot \(name) takes its events by webhook, and bots.yaml has no webhook: section to take them at; add one, such as webhook: { port: 8789 }")
            }
            guard !scaledOut else {
                throw node.error(
                    .badValue,
                    "bot \(name) takes its events by webhook and the bots are scaled out: the service posts each event to one address, so the nodes cannot share channels out that way; leave events out (WebSocket) to scale out")
            }
        }
        return transport
    }
}
