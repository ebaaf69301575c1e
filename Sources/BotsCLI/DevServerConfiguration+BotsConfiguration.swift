import ChatBotKitConfiguration
import ChatBotKit
import ChatDevServer
import Foundation

extension DevServerConfiguration {
    /// The embedded server `configuration` describes: its `embedded:` section, and the key and
    /// secret of its `server:` section so that the bots' tokens are the server's.
    init(_ configuration: BotsConfiguration) {
        self.init(configuration.embedded, apiKey: configuration.server.apiKey, apiSecret: configuration.server.apiSecret.value)
    }

    /// The server an `embedded:` section describes, with this key and secret.
    init(_ embedded: BotsConfiguration.Embedded, apiKey: String, apiSecret: String) {
        // bots.yaml keeps size_limit within the hosted service's 100MB, so no clamp is needed here.
        let rules = UploadRules(
            allowedFileExtensions: embedded.allowedFileExtensions, blockedFileExtensions: embedded.blockedFileExtensions,
            allowedMimeTypes: embedded.allowedMimeTypes, blockedMimeTypes: embedded.blockedMimeTypes,
            sizeLimit: embedded.uploadSizeLimit ?? 0)
        self.init(
            host: embedded.host, port: embedded.port, dataDirectory: URL(fileURLWithPath: embedded.dataDirectory, isDirectory: true),
            apiKey: apiKey, apiSecret: apiSecret, acceptsDevTokens: embedded.acceptsDevTokens,
            linkLifetime: embedded.linkLifetime, healthCheckInterval: embedded.healthCheckInterval,
            initialFileUploadConfig: rules, initialImageUploadConfig: UploadRules(sizeLimit: rules.sizeLimit),
            enrichesURLs: embedded.enrichesURLs)
        defaultRateLimit = embedded.defaultRateLimit
        playgroundRenderers = embedded.playgroundRenderers.map { URL(fileURLWithPath: $0) }
        rateLimits = embedded.rateLimits
    }
}
