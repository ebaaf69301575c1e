/// The files `init` writes: a package for a bot kind of one's own, laid out as Examples/CoachBot
/// (`init coach` writes that example's kind, tool, tests and bots.yaml, byte for byte; a test
/// holds them to it, so what `init` writes is code that is compiled and tested here).
///
/// `{{name}}` is the kind's name (`step-counter`), `{{Type}}` its type (`StepCounter`),
/// `{{Module}}` the kind's module (`StepCounterBot`), `{{package}}` and `{{dependency}}` name
/// ChatBotKit's package.
enum ProjectTemplate {
    /// Each file's path in the package and its text.
    static let files: [(path: String, text: String)] = [
        ("Package.swift", package),
        ("Sources/{{Module}}/{{Type}}.swift", kind),
        ("Sources/{{name}}/main.swift", tool),
        ("Sources/{{name}}/Cheer.swift", command),
        ("Tests/{{Module}}Tests/{{Type}}Tests.swift", tests),
        ("bots.yaml", configuration),
        (".gitignore", gitignore),
        ("README.md", readme),
    ]

    static let package = ##"""
        // swift-tools-version:6.1
        import PackageDescription

        let package = Package(
            name: "{{name}}",
            platforms: [.macOS(.v15)],
            dependencies: [
                {{dependency}},
            ],
            targets: [
                // The bot kind: what the bot does and the options bots.yaml gives it.
                .target(
                    name: "{{Module}}",
                    dependencies: [.product(name: "ChatBotKit", package: "{{package}}"), .product(name: "ChatBotKitConfiguration", package: "{{package}}")]
                ),
                // The command line tool for it: `{{name}} run`, `simulate`, `send`, `doctor`, …
                .executableTarget(name: "{{name}}", dependencies: ["{{Module}}", .product(name: "BotsCLI", package: "{{package}}")]),
                .testTarget(
                    name: "{{Module}}Tests",
                    dependencies: [
                        "{{Module}}", .product(name: "ChatBotKit", package: "{{package}}"),
                        .product(name: "ChatBotKitConfiguration", package: "{{package}}"), .product(name: "ChatBotKitTesting", package: "{{package}}"),
                    ]
                ),
            ]
        )
        """##

    static let kind = ##"""
        import ChatBotKit
        import ChatBotKitConfiguration

        /// A workout, as the {{name}} reads it: its distance in meters.
        public struct Workout: AttachmentPayload {
            /// `workout`.
            public static let type = AttachmentType(rawValue: "workout")
            /// Meters.
            public var distance: Int

            /// A workout.
            public init(distance: Int) {
                self.distance = distance
            }
        }

        /// The {{name}}: answers every workout with its distance and a cheer. bots.yaml names it
        /// `kind: {{name}}`; `cheer` is its own option.
        public enum {{Type}}: BotKind {
            /// `kind: {{name}}`.
            public static let name = "{{name}}"
            /// What `run` prints for its user to try.
            public static let samples = [BotKindSample(#"--attachment '{"type":"workout","distance":5000}'"#)]

            /// The bot of one bots.yaml entry.
            public static func makeBot(_ entry: BotsConfiguration.BotEntry, environment: BotKindEnvironment) throws -> Bot {
                try entry.node.allowOnly(BotsConfiguration.commonBotKeys + ["cheer"])
                return make(name: entry.name, user: User(id: entry.user), cheer: try cheer(of: entry))
            }

            /// The cheer a bots.yaml entry gives it (`Nice` when it gives none).
            public static func cheer(of entry: BotsConfiguration.BotEntry) throws -> String {
                try entry.node["cheer"]?.string() ?? "Nice"
            }

            /// The bot, with its handlers.
            public static func make(name: String, user: User, cheer: String) -> Bot {
                let bot = Bot(name: name, user: user)
                bot.on(Workout.self) { workout, context in
                    try await context.reply(text: "\(cheer), \(workout.distance) m!")
                }
                return bot
            }
        }
        """##

    static let tool = ##"""
        import BotsCLI
        import {{Module}}

        // The command line tool (run, serve, send, simulate, doctor, …) for bots.yaml files that
        // name `kind: {{name}}`, with a subcommand of its own: `{{name}} cheer`.
        await BotsCLI.main(kinds: [{{Type}}.self], commands: [Cheer.self])
        """##

    static let command = ##"""
        import BotsCLI
        import ChatBotKitConfiguration
        import {{Module}}

        /// `{{name}} cheer alice`: a {{name}} bot of bots.yaml cheers a user on in its channel, as its
        /// user, with the cheer bots.yaml gives it. A subcommand of the tool's own, beside the
        /// built-in ones; `ConfigOptions` gives it `--config`, `--server` and a client.
        struct Cheer: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Cheer a user on, as a {{name}} bot of bots.yaml.")

            @OptionGroup var options: ConfigOptions

            @Option(help: "The bot of bots.yaml that cheers.")
            var bot = "{{name}}"

            @Option(help: "The channel, type:id (default: the bot's first).")
            var channel: ChannelId?

            @Argument(help: "Who to cheer on.")
            var user: String

            func run() async throws {
                let configuration = try options.load()
                guard let entry = configuration.bots.first(where: { $0.name == bot && $0.kind == {{Type}}.name }) else {
                    throw ValidationError("\(options.config) has no {{name}} bot named \(bot)")
                }
                let text = "\(try {{Type}}.cheer(of: entry)), \(user)!"
                let channel = self.channel ?? entry.channels[0]
                let client = options.client(as: entry.user, in: configuration)
                try await options.reaching(configuration) {
                    try await client.sendMessage(OutgoingMessage(text: text), to: channel, as: entry.user)
                }
                print("\(entry.user) in \(channel): \(text)")
            }
        }
        """##

    static let tests = ##"""
        import ChatBotKit
        import ChatBotKitConfiguration
        import ChatBotKitTesting
        import {{Module}}
        import Foundation
        import Testing

        @Suite("The {{name}}")
        struct {{Type}}Tests {
            @Test("a workout gets its distance back with the cheer")
            func answersAWorkout() async throws {
                try await TestChatServer.withServer { server in
                    let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
                    let bot = {{Type}}.make(name: "{{name}}", user: User(id: "{{name}}-bot"), cheer: "Way to go")
                    try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                        let sent = try await ann.send(Workout(distance: 5000))
                        let reply = try await ann.replies(to: sent, from: "{{name}}-bot")
                        #expect(reply.first?.text == "Way to go, 5000 m!")
                    }
                }
            }

            @Test("bots.yaml gives the cheer, and a key the {{name}} does not know is an error where it is")
            func options() throws {
                let environment = BotKindEnvironment(dataDirectory: FileManager.default.temporaryDirectory)
                let file = """
                    server: { api_key: key, api_secret: a-secret-of-at-least-thirty-two-bytes }
                    bots:
                      - { name: {{name}}, kind: {{name}}, user: {{name}}-bot, channels: [messaging:general], cheer: Go }
                      - name: typo
                        kind: {{name}}
                        user: typo-bot
                        channels: [messaging:general]
                        chear: Go
                    """
                let entries = try BotsConfiguration.parse(file).bots
                #expect(try {{Type}}.makeBot(entries[0], environment: environment).name == "{{name}}")
                let error = #expect(throws: ConfigurationError.self) { try {{Type}}.makeBot(entries[1], environment: environment) }
                #expect(error?.description.hasPrefix(#"bots.yaml:8:5: error: unknown key "chear" in bots[1] (did you mean "cheer"?)"#) == true)
            }
        }
        """##

    static let configuration = ##"""
        # `{{name}} run` runs these bots, with the embedded dev server when `server.url` is left out;
        # `{{name}} doctor` checks them against the server, `{{name}} simulate` tries one message on them.
        server:
          api_key: ${CHAT_API_KEY:-dev-key}
          api_secret: ${CHAT_API_SECRET:-a-dev-secret-of-at-least-32-bytes}
        embedded: { port: 8787, data: .bots/{{name}}-data }
        bots:
          - name: {{name}}
            kind: {{name}}
            user: {{name}}-bot
            channels: [messaging:general]
            cheer: Way to go
        """##

    static let gitignore = ##"""
        .build/
        .bots/
        """##

    static let readme = ##"""
        # {{name}}

        A chat bot kind of its own, `{{name}}`, and the command line tool for it, on ChatBotKit.

        ```sh
        swift run {{name}} simulate --attachment '{"type":"workout","distance":5000}'   # one message, on a private dev server
        swift run {{name}} run                                                         # the embedded dev server and the bots of bots.yaml
        swift test
        ```

        - `Sources/{{Module}}/{{Type}}.swift`: the kind: its payload type, its handlers, its options in bots.yaml.
        - `Sources/{{name}}/main.swift`: the tool, `BotsCLI.main(kinds: [{{Type}}.self], commands: [Cheer.self])`.
        - `Sources/{{name}}/Cheer.swift`: a subcommand of its own, `{{name}} cheer alice` (its bot, running, cheers alice on).
        - `Tests/{{Module}}Tests/{{Type}}Tests.swift`: the bot against an in-process dev server.
        - `bots.yaml`: the bots `{{name}} run` starts (`server.url` for the hosted service).
        """##
}
