import ChatBotKitConfiguration
import ArgumentParser
import ChatBotKit
import ChatClient
import ChatModels
import Foundation

/// `--config` and `--server`, shared by the commands that talk to the configured server, and
/// for subcommands of your own (`@OptionGroup var options: ConfigOptions`): the configuration,
/// a client on its server, and a clear error when nothing listens there.
public struct ConfigOptions: ParsableArguments {
    /// The configuration file (`--config`, bots.yaml by default).
    @Option(help: "The configuration file.")
    public var config: String = "bots.yaml"

    /// The server's base URL (`--server`), in place of the configuration's.
    @Option(help: "The server's base URL (default: server.url, else the embedded server's address).", transform: ConfigOptions.serverURL)
    public var server: URL?

    /// Options as ArgumentParser makes them.
    public init() {}

    /// `--server` as an http(s) URL with a host, as `server.url` must be; anything else used to
    /// fall back to the configuration's server without a word.
    static func serverURL(_ text: String) throws -> URL {
        guard let url = BotsConfiguration.Server.httpURL(text) else {
            throw ValidationError("use an http(s) URL with a host, such as http://127.0.0.1:8787")
        }
        return url
    }

    /// The configuration, or a located error printed the way editors understand.
    public func load() throws -> BotsConfiguration {
        do {
            return try BotsConfiguration.load(contentsOf: config)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// Runs `body`, the first call to the server `configuration` points at: when nothing
    /// listens there, says so and how to start one, instead of curl's "Couldn't connect to server".
    @discardableResult
    public func reaching<T>(_ configuration: BotsConfiguration, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as ChatClientError where error.isServerUnreachable {
            let (base, origin) = address(configuration)
            throw ServerUnreachable(base: base, origin: origin, underlying: error)
        }
    }

    /// The server's base URL and where it came from: `--server`, else `server.url`, else the
    /// embedded server's address.
    func address(_ configuration: BotsConfiguration) -> (url: URL, origin: ServerUnreachable.Origin) {
        if let server { return (server, .option) }
        if let url = configuration.server.url { return (url, .configuration) }
        return (URL(string: "http://\(configuration.embedded.host):\(configuration.embedded.port)")!, .embedded)
    }

    /// A client acting as `userId` on the configured server, and the configuration.
    public func client(as userId: String) throws -> (ChatClient, BotsConfiguration) {
        let configuration = try load()
        return (client(as: userId, in: configuration), configuration)
    }

    /// A client acting as `userId` on the server of `configuration` (already loaded).
    public func client(as userId: String, in configuration: BotsConfiguration) -> ChatClient {
        configuration.client(as: userId, at: address(configuration).url)
    }
}

extension BotsConfiguration {
    /// A client acting as `userId` (no one in particular by default: a server-side call) with the
    /// configuration's key and secret, on the server at `baseURL`. It waits out no outage: a
    /// command run at a terminal says at once that the server is down (the bots of `bots run`
    /// wait for up to their `outage_tolerance`).
    func client(as userId: String? = nil, at baseURL: URL) -> ChatClient {
        ChatClient(
            configuration: ChatClientConfiguration(
                apiKey: server.apiKey, baseURL: baseURL, credentials: .apiSecret(server.apiSecret.value), userId: userId,
                outageTolerance: .zero))
    }
}

extension ChannelId: ExpressibleByArgument {
    /// Parses `type:id` from the command line.
    public init?(argument: String) {
        guard let cid = try? ChannelId(cid: argument) else { return nil }
        self = cid
    }
}

/// No server answered at the address a command talks to.
struct ServerUnreachable: Error, CustomStringConvertible {
    /// Where the address came from, which says what to fix.
    enum Origin {
        case option, configuration, embedded
    }

    static let code = "bots.server_unreachable"
    let base: URL
    let origin: Origin
    let underlying: ChatClientError

    var description: String {
        let hint =
            switch origin {
            case .option: "check --server"
            case .configuration: "check server.url in the configuration, or pass --server"
            case .embedded: "start it with `\(BotsCLI.commandName) run` (or `\(BotsCLI.commandName) serve`) in another terminal, or pass --server"
            }
        return "[\(Self.code)] no chat server answers at \(base.absoluteString); \(hint) (\(underlying))"
    }
}
