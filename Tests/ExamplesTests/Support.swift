import ChatBotKitConfiguration
import ChatBotKit
import ChatBotKitTesting
import Foundation
import Logging

extension ScratchFolder {
    /// What a bot kind needs to build itself, with this scratch folder as its data folder.
    var environment: BotKindEnvironment { BotKindEnvironment(dataDirectory: url, logger: Logger(label: "example-test")) }
}

/// The one bot entry of a `bots.yaml` made of `botYAML` (indented as a list item's body).
func botEntry(_ botYAML: String) throws -> BotsConfiguration.BotEntry {
    let yaml = """
        server: { api_key: key, api_secret: a-secret-of-at-least-32-bytes-long }
        bots:
          - \(botYAML.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n    "))
        """
    let configuration = try BotsConfiguration.parse(yaml, file: "bots.yaml")
    return configuration.bots[0]
}
