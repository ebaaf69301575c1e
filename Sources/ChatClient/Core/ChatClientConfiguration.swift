import ChatModels
import Foundation

/// How a ``ChatClient`` reaches the chat service and who it acts as.
public struct ChatClientConfiguration: Sendable {
    /// How requests authenticate.
    public enum Credentials: Sendable {
        /// The app secret: the client mints a server token for REST calls and user tokens for
        /// event connections (what a bot on a server uses).
        case apiSecret(String)
        /// A token for one user, issued elsewhere.
        case userToken(String)
    }

    /// The app's API key.
    public var apiKey: String
    /// `https://chat.stream-io-api.com`, or the dev server's address.
    public var baseURL: URL
    /// How requests authenticate.
    public var credentials: Credentials
    /// The user calls act as by default (the bot's user). Required with a user token, where it must be the token's user.
    public var userId: String?
    /// The largest file the client will upload, whatever the app allows (100 MB, as on the service).
    public var maximumUploadSize: Int64
    /// How many times a retryable call is tried at least, however short ``outageTolerance``.
    public var maximumAttempts: Int
    /// How long a call that is safe to repeat (a read, a send with its id, a reaction, a partial
    /// update, a delete, an upload) keeps trying while the service is unreachable, fails (5xx)
    /// or is busy (429), counted from its first failure: 10 minutes by default, which rides out
    /// a deploy or a proxy restart. `.zero` gives up after ``maximumAttempts``.
    public var outageTolerance: Duration
    /// The longest wait honoured for a rate-limit reset.
    public var maximumRateLimitWait: Duration
    /// Extra trusted certificates (PEM) for servers with a private CA.
    public var caFile: String?
    /// How long before a signed link's expiry it counts as expired (so a download never races the expiry).
    public var linkRefreshMargin: Duration
    /// The `X-Stream-Client` header.
    public var clientIdentifier: String
    /// A limit this client keeps to on its own calls, below the service's quotas; nil for none.
    public var rateBudget: RateBudget?

    /// A configuration with the service's defaults.
    public init(
        apiKey: String, baseURL: URL = URL(string: "https://chat.stream-io-api.com")!, credentials: Credentials, userId: String? = nil,
        maximumUploadSize: Int64 = 100 * 1024 * 1024, maximumAttempts: Int = 4, maximumRateLimitWait: Duration = .seconds(60),
        caFile: String? = nil, linkRefreshMargin: Duration = .seconds(30), clientIdentifier: String = "chatbotkit-swift-0.1",
        rateBudget: RateBudget? = nil, outageTolerance: Duration = .seconds(600)
    ) {
        self.apiKey = apiKey
        self.baseURL = baseURL
        self.credentials = credentials
        self.userId = userId
        self.maximumUploadSize = maximumUploadSize
        self.maximumAttempts = maximumAttempts
        self.maximumRateLimitWait = maximumRateLimitWait
        self.outageTolerance = outageTolerance
        self.caFile = caFile
        self.linkRefreshMargin = linkRefreshMargin
        self.clientIdentifier = clientIdentifier
        self.rateBudget = rateBudget
    }
}
