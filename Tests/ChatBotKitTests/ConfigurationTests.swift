import ChatBotKitConfiguration
import ChatBotKit
import ChatModels
import Foundation
import Testing

@Suite("bots.yaml")
struct ConfigurationTests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let minimal = """
        server:
          api_key: key
          api_secret: ${CHAT_API_SECRET:-a-secret-of-at-least-32-bytes-long}
        bots:
          - name: echo
            kind: echo
            channels: [messaging:general]
        """

    @Test("the repository's bots.yaml reads: embedded server, three bots, their own options kept")
    func repositoryFile() throws {
        let configuration = try BotsConfiguration.load(contentsOf: Self.repositoryRoot.appendingPathComponent("bots.yaml").path, environment: [:])
        #expect(configuration.server.url == nil)
        #expect(configuration.server.apiKey == "dev-key")
        #expect(configuration.embedded.port == 8787)
        #expect(configuration.embedded.linkLifetime == .seconds(14 * 86_400))
        #expect(configuration.embedded.enrichesURLs)
        #expect(configuration.embedded.uploadSizeLimit == Int64(100 * 1024 * 1024), "sizes are binary: 100MB is 100 MiB")
        #expect(configuration.bots.map(\.kind) == ["workout", "moderation", "archive"])
        #expect(configuration.bots.map(\.user) == ["workout-bot", "moderator", "archive-bot"])
        #expect(configuration.bots.allSatisfy { $0.channels == ["messaging:general"] })
        #expect(try configuration.bots[1].node["policy"]?["action"]?.string() == "delete_and_notify")
        #expect(try configuration.bots[1].node["policy"]?["ban_after"]?.int() == 3)
        #expect(configuration.bots.map(\.senderLimit?.rate.description) == ["30/min", nil, nil], "the moderator skips nothing it should judge")
        #expect(configuration.metrics == BotsConfiguration.MetricsEndpoint(host: "127.0.0.1", port: 9464))
    }

    @Test("webhook: takes none when left out; 127.0.0.1:8789 at /webhook by default; a bot's events are its WebSocket's unless it says webhook")
    func webhookSection() throws {
        let none = try BotsConfiguration.parse(Self.minimal)
        #expect(none.webhook == nil)
        #expect(none.bots[0].events == .websocket)
        let yaml = Self.minimal.replacingOccurrences(of: "bots:", with: "webhook: {}\nbots:") + "\n    events: webhook\n"
        let configured = try BotsConfiguration.parse(yaml)
        #expect(configured.webhook == .init(host: "127.0.0.1", port: 8789, path: "/webhook"))
        #expect(configured.bots[0].events == .webhook)
        let chosen = try BotsConfiguration.parse(yaml.replacingOccurrences(of: "webhook: {}", with: "webhook: {host: 0.0.0.0, port: 0, path: /stream/events}"))
        #expect(chosen.webhook == .init(host: "0.0.0.0", port: 0, path: "/stream/events"))
        #expect(configured.webhook?.commandsPath == "/commands")
        let commands = try BotsConfiguration.parse(yaml.replacingOccurrences(of: "webhook: {}", with: "webhook: {commands_path: /stream/commands}"))
        #expect(commands.webhook == .init(host: "127.0.0.1", port: 8789, path: "/webhook", commandsPath: "/stream/commands"))
        #expect(commands.webhook?.commandsDeadline == .seconds(5), "a command handler has 5 s unless told otherwise")
        let patient = try BotsConfiguration.parse(yaml.replacingOccurrences(of: "webhook: {}", with: "webhook: {commands_deadline: 2500ms}"))
        #expect(patient.webhook?.commandsDeadline == .milliseconds(2_500))
        #expect(try BotsConfiguration.parse(yaml.replacingOccurrences(of: "events: webhook", with: "events: WebSocket")).bots[0].events == .websocket)
    }

    @Test("metrics: serves none when left out; host and port default to 127.0.0.1:9464; the dev server's port is fine with server.url")
    func metricsSection() throws {
        #expect(try BotsConfiguration.parse(Self.minimal).metrics == nil)
        #expect(try BotsConfiguration.parse(Self.minimal + "\nmetrics: {}\n").metrics == .init(host: "127.0.0.1", port: 9464))
        let chosen = try BotsConfiguration.parse(Self.minimal + "\nmetrics: {host: 0.0.0.0, port: 0}\n").metrics
        #expect(chosen == .init(host: "0.0.0.0", port: 0))
        // No embedded server runs with server.url, so its port is free for the metrics.
        let hosted = Self.minimal.replacingOccurrences(of: "server:\n", with: "server:\n  url: https://chat.example.com\n")
        #expect(try BotsConfiguration.parse(hosted + "\nmetrics: {port: 8787}\n").metrics?.port == 8787)
    }

    @Test("${VAR:-default} takes the environment's value when set, the default otherwise")
    func variables() throws {
        let fromDefault = try BotsConfiguration.parse(Self.minimal)
        #expect(fromDefault.server.apiSecret.value == "a-secret-of-at-least-32-bytes-long")
        let fromEnvironment = try BotsConfiguration.parse(Self.minimal, environment: ["CHAT_API_SECRET": "secret-from-the-environment"])
        #expect(fromEnvironment.server.apiSecret.value == "secret-from-the-environment")
        #expect(fromEnvironment.bots.first?.user == "echo", "the user defaults to the bot's name")
        #expect(fromEnvironment.bots.first?.concurrency == 8)
    }

    @Test("catch_up: a day unless given, a duration, or off; the checkpoint lives beside the embedded server's data, or inside a path root")
    func catchUp() throws {
        let yaml = """
            server: {api_key: k, api_secret: s-0123456789abcdef}
            embedded: {data: state/data}
            bots:
              - {name: a, kind: echo, channels: [messaging:x]}
              - {name: b, kind: echo, channels: [messaging:x], catch_up: 30m}
              - {name: c, kind: echo, channels: [messaging:x], catch_up: off}
            """
        let configuration = try BotsConfiguration.parse(yaml)
        #expect(configuration.bots.map(\.catchUp) == [.seconds(86_400), .seconds(1800), nil])
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        #expect(configuration.checkpointFile(for: configuration.bots[0]).path == here.appendingPathComponent("state/checkpoints/a.json").path)
        let root = URL(fileURLWithPath: "/tmp/simulation")
        #expect(configuration.checkpointFile(for: configuration.bots[1], under: root).path == "/tmp/simulation/state/checkpoints/b.json")
    }


    @Test("secrets never show in descriptions or logs")
    func secretsHidden() throws {
        let configuration = try BotsConfiguration.parse(Self.minimal)
        let secret = configuration.server.apiSecret
        #expect("\(secret)" == "********")
        #expect(String(reflecting: secret) == "Secret(********)")
        #expect(!"\(configuration)".contains("a-secret-of-at-least"))
    }

    /// Each bad input, the error code it gets, where (line:column) and what the message says.
    @Test(
        "bad bots.yaml is reported with file, line and column, and nothing starts",
        arguments: [
            (
                "unknown top-level key", "servr:\n  api_key: k\nbots: []\n", ConfigurationError.Code.unknownKey, 1, 1, "servr"
            ),
            (
                "unknown key in a section",
                "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nembedded:\n  prot: 80\nbots: []\n", .unknownKey, 5, 3, "prot"
            ),
            (
                "wrong type", "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nembedded:\n  port: eighty\nbots: []\n", .wrongType, 5, 9,
                "port"
            ),
            (
                "missing secret variable", "server:\n  api_key: k\n  api_secret: ${CHAT_API_SECRET}\nbots: []\n", .missingVariable, 3, 15,
                "CHAT_API_SECRET"
            ),
            (
                "channel id without a type",
                "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nbots:\n  - name: a\n    kind: echo\n    channels: [general]\n",
                .badValue, 7, 16, "type:id"
            ),
            (
                "a malformed channel id in a long list: the bot does not start with the others",
                "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nbots:\n  - name: a\n    kind: echo\n    channels:\n      - messaging:c1\n      - messaging:c2\n      - messaging:c 3\n      - messaging:c4\n",
                .badValue, 10, 9, "\"messaging:c 3\" is not a channel id"
            ),
            (
                "duration without a unit",
                "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nbots:\n  - name: a\n    kind: echo\n    channels: [messaging:x]\n    drain_deadline: 10\n",
                .badValue, 8, 21, "drain_deadline"
            ),
            (
                "reuse_uploads that is not a boolean",
                "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nbots:\n  - name: a\n    kind: echo\n    channels: [messaging:x]\n    reuse_uploads: often\n",
                .wrongType, 8, 20, "reuse_uploads"
            ),
            (
                "catch_up that is neither a duration nor off",
                "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nbots:\n  - name: a\n    kind: echo\n    channels: [messaging:x]\n    catch_up: always\n",
                .badValue, 8, 15, "bots[0].catch_up must be a duration such as 30m or 1d, or off, found \"always\""
            ),
            (
                "two bots acting as one user in different channels (each followed the other's channels through the shared membership)",
                "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nbots:\n  - {name: a, kind: echo, user: helper, channels: [messaging:x]}\n  - {name: b, kind: echo, user: helper, channels: [messaging:y]}\n",
                .badValue, 6, 33,
                "bots a and b both act as user \"helper\"; a bot follows every channel its user is a member of, so each would also handle the other's channels; give one of them its own user:"
            ),
            (
                "two bots with one name",
                "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nbots:\n  - {name: a, kind: echo, channels: [messaging:x]}\n  - {name: a, kind: echo, channels: [messaging:y]}\n",
                .badValue, 6, 12, "unique"
            ),
            (
                "two bots acting as one user in a channel (each skipped the other's messages as its own)",
                "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nbots:\n  - {name: a, kind: echo, channels: [messaging:x]}\n  - {name: b, kind: echo, user: a, channels: [messaging:y, messaging:x]}\n",
                .badValue, 6, 33, "bots a and b both act as user \"a\" in messaging:x"
            ),
            (
                "upload limit above the hosted service's 100MB (it used to be cut to 100MB without a word)",
                "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nembedded:\n  uploads: {size_limit: 2GB}\nbots: []\n",
                .badValue, 5, 25, "at most 100MB, the hosted service's limit, found \"2GB\""
            ),
            (
                "url enrichment that is neither on nor off",
                "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nembedded:\n  url_enrichment: sometimes\nbots: []\n",
                .wrongType, 5, 19, "embedded.url_enrichment must be true or false, found \"sometimes\""
            ),
            (
                "upload limit of nothing",
                "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nembedded:\n  uploads: {size_limit: 0}\nbots: []\n",
                .badValue, 5, 25, "must be more than 0"
            ),
            (
                "metrics port out of range",
                "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nmetrics:\n  port: 70000\nbots: []\n",
                .badValue, 5, 9, "metrics.port must be 0...65535"
            ),
            (
                "metrics on the embedded dev server's port (it failed to bind only once the server listened)",
                "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nembedded:\n  port: 8787\nmetrics:\n  port: 8787\nbots: []\n",
                .badValue, 7, 9, "metrics.port 8787 is the embedded dev server's port"
            ),
            (
                "metrics with an empty host",
                "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nmetrics:\n  host: \"\"\nbots: []\n",
                .badValue, 5, 9, "metrics.host is empty"
            ),
            (
                "unknown key in metrics",
                "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nmetrics:\n  path: /stats\nbots: []\n",
                .unknownKey, 5, 3, "path"
            ),
            (
                "webhook events on a scaled-out bot (the service posts each event to one address)",
                "server:\n  url: https://chat.example.com\n  api_key: k\n  api_secret: s-0123456789abcdef\n"
                    + "scale_out: {postgres: postgres://localhost/bots}\nwebhook: {port: 8789}\n"
                    + "bots:\n  - {name: w, kind: workout, channels: [messaging:general], events: webhook}\n",
                .badValue, 8, 69, "leave events out (WebSocket) to scale out"
            ),
            (
                "webhook on the metrics port",
                "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nmetrics: {port: 9464}\nwebhook: {port: 9464}\nbots: []\n",
                .badValue, 5, 17, "webhook.port 9464 is metrics.port"
            ),
            (
                "custom commands at the webhook's own path",
                "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nwebhook: {path: /hooks, commands_path: /hooks}\nbots: []\n",
                .badValue, 4, 40, "webhook.commands_path is webhook.path (/hooks)"
            ),
            (
                "custom commands at a path with the {type} placeholder in it",
                "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nwebhook:\n  commands_path: \"/commands/{type}\"\nbots: []\n",
                .badValue, 5, 18, "webhook.commands_path must be a path such as /commands"
            ),
            (
                "sender_limit that is not a rate",
                "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nbots:\n  - name: a\n    kind: echo\n    channels: [messaging:x]\n    sender_limit: lots\n",
                .badValue, 8, 19, "bots[0].sender_limit must be a rate such as 30/min, 5/s or 100/h, found \"lots\""
            ),
            (
                "sender_limit with a misspelt key",
                "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nbots:\n  - name: a\n    kind: echo\n    channels: [messaging:x]\n    sender_limit: {messages: 5/min, notfy: false}\n",
                .unknownKey, 8, 37, "notfy"
            ),
            (
                "sender_limit without messages",
                "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nbots:\n  - name: a\n    kind: echo\n    channels: [messaging:x]\n    sender_limit: {notify: false}\n",
                .missingKey, 8, 19, "messages"
            ),
            (
                "sender_limit's notify that is not a boolean",
                "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nbots:\n  - name: a\n    kind: echo\n    channels: [messaging:x]\n    sender_limit: {messages: 5/min, notify: sometimes}\n",
                .wrongType, 8, 45, "notify"
            ),
            (
                "sender_limit's exempt naming an impossible user id",
                "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nbots:\n  - name: a\n    kind: echo\n    channels: [messaging:x]\n    sender_limit: {messages: 5/min, exempt: [\"bad id\"]}\n",
                .badValue, 8, 46, "bad id"
            ),
            (
                "commands_deadline as long as the service waits",
                "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nwebhook: {commands_deadline: 6s}\nbots: []\n",
                .badValue, 4, 30, "webhook.commands_deadline must be less than 6s, the time the service waits for an answer; found 6s"
            ),
            (
                "commands_deadline of nothing",
                "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nwebhook: {commands_deadline: 0s}\nbots: []\n",
                .badValue, 4, 30, "webhook.commands_deadline must be a duration such as 30s"
            ),
            (
                "channels misspelt, which the bot needs",
                "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nbots:\n  - name: a\n    kind: echo\n    chanels: [messaging:x]\n",
                .missingKey, 7, 5, "bots[0] needs \"channels\"; is \"chanels\" a misspelling of it?"
            ),
            (
                "a required key missing, and no key close to it",
                "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nbots:\n  - name: a\n    kind: echo\n    channel_list: [messaging:x]\n",
                .missingKey, 5, 5, "bots[0] needs \"channels\""
            ),
            (
                "name misspelt by a letter",
                "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nbots:\n  - kind: echo\n    nome: a\n    channels: [messaging:x]\n",
                .missingKey, 6, 5, "bots[0] needs \"name\"; is \"nome\" a misspelling of it?"
            ),
            ("missing bots list", "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\n", .missingKey, 1, 1, "bots"),
            ("short secret", "server:\n  api_key: k\n  api_secret: short\nbots: []\n", .badValue, 3, 15, "too short"),
            ("YAML syntax", "server:\n  api_key: [unclosed\nbots: []\n", .syntax, 3, 5, "invalid YAML"),
        ])
    func badInput(_ name: String, _ yaml: String, _ code: ConfigurationError.Code, _ line: Int, _ column: Int, _ mentions: String) {
        #expect {
            try BotsConfiguration.parse(yaml, file: "bad.yaml", environment: [:])
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            #expect(error.code == code, "\(name): \(error)")
            #expect(error.file == "bad.yaml")
            #expect((error.line, error.column) == (line, column), "\(name): \(error)")
            #expect(error.message.contains(mentions), "\(name): \(error)")
            #expect(error.description.hasPrefix("bad.yaml:\(line):\(column): error: "))
            return true
        }
    }

    @Test("a kind's short required key is not guessed from a key of another meaning a letter away; a long one is")
    func requiredKeyGuesses() throws {
        let yaml = "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nbots:\n  - name: a\n    kind: echo\n    channels: [messaging:x]\n    ip: 1\n    thresold: 3\n"
        let entry = try #require(try BotsConfiguration.parse(yaml, file: "kind.yaml", environment: [:]).bots.first)
        #expect {
            try entry.node.required("id")
        } throws: { error in
            (error as? ConfigurationError)?.message == "bots[0] needs \"id\""
        }
        #expect {
            try entry.node.required("threshold")
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.message == "bots[0] needs \"threshold\"; is \"thresold\" a misspelling of it?" && (error.line, error.column) == (9, 5)
        }
    }

    @Test("a missing file is an unreadable error naming the path, with no line or column")
    func missingFile() {
        #expect {
            try BotsConfiguration.load(contentsOf: "/nonexistent/bots.yaml", environment: [:])
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            #expect(error.code == .unreadable)
            // No line or column: the file has none to give.
            #expect("\(error)".hasPrefix("/nonexistent/bots.yaml: error: cannot read /nonexistent/bots.yaml"), "\(error)")
            return true
        }
    }
}
