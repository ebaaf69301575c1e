import ChatBotKit
import ChatModels
import ChatServing
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// The HTTP endpoint the service posts the app's events to (its `webhook_url`), passing each
/// request to a ``WebhookIntake``. A `Service`: run it in the `ServiceGroup` with the bots
/// that take their events from the intake. It answers `POST path`; anything else is 404 or 405.
///
/// Behind a TLS-terminating proxy in production (the service posts to a public https URL);
/// on the embedded dev server, `bots run` points the app's `webhook_url` at it.
public final class WebhookServer: Service, Sendable {
    /// The intake requests go to.
    public let intake: WebhookIntake
    /// The address it listens on.
    public let host: String
    /// The port it listens on (0: any free port; see ``port()``).
    public let requestedPort: Int
    /// The path requests are posted to (`/webhook`).
    public let path: String
    /// The intake custom command requests go to, if the server takes them.
    public let commands: CustomCommandIntake?
    /// Where custom command requests are posted: `commandsPath/{type}` (the command's name, as
    /// the app's `custom_action_handler_url` substitutes it) or `commandsPath` itself.
    public let commandsPath: String
    /// The intake Before Message Send requests go to, if the server takes them.
    public let beforeSend: BeforeSendIntake?
    /// Where Before Message Send requests are posted (the app's `before_message_send_hook_url`).
    public let beforeSendPath: String
    private let logger: Logger
    private let listening = ListeningPort<WebhookServerError>()

    /// A server for `intake` on `host:port` at `path`, for `commands` (when given) at
    /// `commandsPath`, and for `beforeSend` (when given) at `beforeSendPath`.
    public init(
        intake: WebhookIntake, host: String = "127.0.0.1", port: Int, path: String = "/webhook", commands: CustomCommandIntake? = nil,
        commandsPath: String = "/commands", beforeSend: BeforeSendIntake? = nil, beforeSendPath: String = "/before-send",
        logger: Logger = Logger(label: "chatbotkit.webhook")
    ) {
        self.beforeSend = beforeSend
        self.beforeSendPath = beforeSendPath.hasPrefix("/") ? beforeSendPath : "/" + beforeSendPath
        self.intake = intake
        self.host = host
        requestedPort = port
        self.path = path.hasPrefix("/") ? path : "/" + path
        self.commands = commands
        self.commandsPath = commandsPath.hasPrefix("/") ? commandsPath : "/" + commandsPath
        self.logger = logger
    }

    /// Serves until shut down (requests in hand are answered first).
    public func run() async throws {
        let router = Router()
        router.post(RouterPath(path)) { [intake] request, _ -> Response in
            guard let (body, headers) = await WebhookServer.read(request, upTo: intake.maximumBodySize) else {
                return WebhookServer.answer(
                    WebhookIntake.Receipt(
                        status: 413, message: "the body is larger than the \(intake.maximumBodySize) bytes this intake takes", code: "webhook.too_large"))
            }
            return WebhookServer.answer(intake.receive(body: body, headers: headers))
        }
        if let commands {
            let answer: @Sendable (Request) async -> Response = { request in
                guard let (body, headers) = await WebhookServer.read(request, upTo: commands.maximumBodySize) else {
                    let refusal = WebhookError(code: .tooLarge, message: "the body is larger than the \(commands.maximumBodySize) bytes this intake takes")
                    return WebhookServer.json(refusal.httpStatus, refusal.jsonBody)
                }
                let answer = await commands.receive(body: body, headers: headers)
                return WebhookServer.json(answer.status, answer.body)
            }
            router.post(RouterPath(commandsPath)) { request, _ in await answer(request) }
            router.post(RouterPath(commandsPath + "/:type")) { request, _ in await answer(request) }
        }
        if let beforeSend {
            router.post(RouterPath(beforeSendPath)) { request, _ -> Response in
                // The service's clock runs from its request; ours from as early as we can tell.
                let received = ContinuousClock.now
                guard let (body, headers) = await WebhookServer.read(request, upTo: beforeSend.maximumBodySize) else {
                    let refusal = WebhookError(code: .tooLarge, message: "the body is larger than the \(beforeSend.maximumBodySize) bytes this intake takes")
                    return WebhookServer.json(refusal.httpStatus, refusal.jsonBody)
                }
                let answer = await beforeSend.receive(body: body, headers: headers, receivedAt: received)
                return WebhookServer.json(answer.status, answer.body)
            }
        }
        let listening = self.listening
        let application = Application(
            router: router,
            configuration: .init(address: .hostname(host, port: requestedPort), serverName: "chatbotkit-webhook"),
            onServerRunning: { [requestedPort] channel in listening.bound(to: channel.localAddress?.port ?? requestedPort) },
            logger: logger)
        defer { listening.failed(WebhookServerError(code: .stopped, message: "the webhook server stopped before it was listening")) }
        do {
            try await withThrowingDiscardingTaskGroup { group in
                if let beforeSend { group.addTask { await beforeSend.runFollowUps() } }
                try await application.run()
            }
        } catch let error where !listening.isBound && !(error is CancellationError) {
            let reason = ListenFailure.describe(error, host: host, settings: "webhook.port in bots.yaml")
            let failure = WebhookServerError(code: .cannotListen, message: "cannot take webhook requests on \(host):\(requestedPort): \(reason)")
            listening.failed(failure)
            throw failure
        }
    }

    /// The port it listens on, once it does; throws why it cannot, or `CancellationError`.
    public func port() async throws -> Int { try await listening.port() }

    /// `http://host:port/path` once it listens: what the app's `webhook_url` is set to locally.
    public func url() async throws -> URL {
        URL(string: "http://\(host):\(try await port())\(path)")!
    }

    /// `http://host:port/commandsPath/{type}` once it listens: what the app's
    /// `custom_action_handler_url` is set to locally; nil when it takes no custom commands.
    public func commandsURL() async throws -> String? {
        guard commands != nil else { return nil }
        return "http://\(host):\(try await port())\(commandsPath)/{type}"
    }

    /// `http://host:port/beforeSendPath` once it listens: what the app's
    /// `before_message_send_hook_url` is set to locally; nil when it takes no such requests.
    public func beforeSendURL() async throws -> String? {
        guard beforeSend != nil else { return nil }
        return "http://\(host):\(try await port())\(beforeSendPath)"
    }

    /// The request's body, when it is at most `limit` bytes, and its headers by name (lower case,
    /// as the intakes look them up first).
    private static func read(_ request: Request, upTo limit: Int) async -> (body: Data, headers: [String: String])? {
        guard let body = try? await request.body.collect(upTo: limit) else { return nil }
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        return (Data(body.readableBytesView), headers)
    }

    private static func json(_ status: Int, _ body: Data) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: HTTPResponse.Status(code: status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    private static func answer(_ receipt: WebhookIntake.Receipt) -> Response {
        var object: [String: String] = ["message": receipt.message]
        if let code = receipt.code { object["code"] = code }
        let json = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if receipt.status == 503 { headers[.retryAfter] = "1" }
        return Response(status: HTTPResponse.Status(code: receipt.status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: json)))
    }
}
