import ChatBotKit
import Foundation
import Logging

/// A temporary folder for an example's data, removed when the test ends.
final class DataFolder: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("chatbotkit-example-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    var environment: BotKindEnvironment { BotKindEnvironment(dataDirectory: url, logger: .init(label: "example-test")) }
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
