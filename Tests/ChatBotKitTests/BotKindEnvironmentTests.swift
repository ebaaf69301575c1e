import ChatBotKitConfiguration
import ChatBotKit
import ChatModels
import Foundation
import Logging
import Testing

@Suite("Paths of bot kinds")
struct BotKindEnvironmentTests {
    static let yaml = """
        server: { api_key: key, api_secret: a-secret-of-at-least-32-bytes-long }
        bots:
          - { name: a, kind: k, channels: [messaging:general], relative: data/store.sqlite, absolute: /srv/bots/store.sqlite, climbing: ../../etc/store }
        """

    func paths(under root: URL?) throws -> [URL] {
        let entry = try #require(try BotsConfiguration.parse(Self.yaml, file: "bots.yaml").bots.first)
        let environment = BotKindEnvironment(dataDirectory: URL(fileURLWithPath: "/data"), logger: Logger(label: "test"), pathRoot: root)
        return try ["relative", "absolute", "climbing"].map { try environment.path(entry.node[$0], default: "unused") }
            + [try environment.path(nil, default: "a/default.sqlite")]
    }

    @Test("without a root, paths are the configuration's: relative to the working folder, absolute as written")
    func asWritten() throws {
        let cwd = FileManager.default.currentDirectoryPath
        #expect(try paths(under: nil).map(\.path) == [
            cwd + "/data/store.sqlite", "/srv/bots/store.sqlite", cwd + "/../../etc/store", "/data/a/default.sqlite",
        ])
    }

    @Test("under a root (bots simulate), every path of the configuration is inside it, '..' included")
    func underRoot() throws {
        let root = URL(fileURLWithPath: "/tmp/simulation")
        #expect(try paths(under: root).map(\.path) == [
            "/tmp/simulation/data/store.sqlite", "/tmp/simulation/srv/bots/store.sqlite", "/tmp/simulation/etc/store",
            "/data/a/default.sqlite",
        ])
    }
}
