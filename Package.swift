// swift-tools-version:6.1
import PackageDescription

/// Settings shared by every target of ours: Swift 6 language mode comes from the tools version;
/// these keep imports explicit, as the Hummingbird and swift-websocket packages do.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "ChatBotKit",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ChatJSON", targets: ["ChatJSON"]),
        .library(name: "ChatModels", targets: ["ChatModels"]),
        .library(name: "ChatTransport", targets: ["ChatTransport"]),
        .library(name: "ChatClient", targets: ["ChatClient"]),
        .library(name: "ChatBotKit", targets: ["ChatBotKit"]),
        .library(name: "ChatBotKitAI", targets: ["ChatBotKitAI"]),
        .library(name: "ChatBotKitMCP", targets: ["ChatBotKitMCP"]),
        .library(name: "ChatBotKitWebhooks", targets: ["ChatBotKitWebhooks"]),
        .library(name: "ChatBotKitConfiguration", targets: ["ChatBotKitConfiguration"]),
        .library(name: "ChatBotKitTesting", targets: ["ChatBotKitTesting"]),
        .library(name: "ChatDevServer", targets: ["ChatDevServer"]),
        .library(name: "FileSniffing", targets: ["FileSniffing"]),
        .library(name: "ChatBotKitPostgres", targets: ["ChatBotKitPostgres"]),
        .library(name: "ChatTelemetry", targets: ["ChatTelemetry"]),
        .library(name: "BotsCLI", targets: ["BotsCLI"]),
        .executable(name: "bots", targets: ["bots"]),
    ],
    // What a bot needs builds and resolves with no trait: ChatBotKit and below depend only on
    // swift-log, swift-crypto, swift-metrics, swift-distributed-tracing and swift-service-lifecycle.
    // The server side's packages are each resolved only under the trait that needs them, so a
    // package that adds ChatBotKit plainly never fetches SwiftNIO, Hummingbird or Yams:
    // - Webhooks: ChatBotKitWebhooks (a bot that takes its events or custom commands by HTTP);
    // - Configuration: ChatBotKitConfiguration (bots.yaml);
    // - Tools: both, and the dev server, the test kit, Postgres leases, the `bots` tool, the
    //   examples and this package's own tests (`make` enables every trait, as Tools does).
    traits: [
        .trait(name: "Webhooks", description: "ChatBotKitWebhooks: the webhook server and the webhook and custom-command intakes (Hummingbird)"),
        .trait(name: "Configuration", description: "ChatBotKitConfiguration: bots.yaml, bot kinds and reloading (Yams)"),
        .trait(name: "MCP", description: "ChatBotKitMCP: Model Context Protocol servers' tools for AI assistants (the MCP Swift SDK)"),
        .trait(
            name: "Tools", description: "The dev server, ChatBotKitTesting, ChatBotKitPostgres, the bots tool and the examples",
            enabledTraits: ["Webhooks", "Configuration", "MCP"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        // Hummingbird already depends on swift-metrics; swift-prometheus (its only new package)
        // lets `bots run` serve the metrics at /metrics.
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // Already in the build through Hummingbird: spans from a delivery to the HTTP calls its
        // handlers make, for whatever tracer an app bootstraps (InMemoryTracing in the tests).
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        // Channel leases for bots scaled out over several processes or machines (ChatBotKitPostgres):
        // the one store every node of a deployment already reaches, and that can take a lease
        // atomically against its own clock.
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // Already in the build through Hummingbird; named for ChatServing's NIOCore.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // gzip of webhook bodies (the service's `webhook_compression_algorithm`): the dev server
        // compresses them, the bots' webhook intake inflates them. Wraps zlib over NIO's
        // ByteBuffer, which both already hold; no C of ours.
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        // `make docs`: the DocC catalogs of the public modules (`swift package generate-documentation`).
        // No target depends on it, so a package that adds ChatBotKit builds nothing of it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // MCP tools for AI assistants (ChatBotKitMCP, under the MCP trait): the protocol's own
        // Swift SDK, its client and stdio transport. Its package names SwiftNIO (for its
        // examples), which is why it is a trait of its own.
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk.git", from: "0.12.1"),
    ],
    targets: [
        // MARK: Wire model
        .target(name: "ChatJSON", swiftSettings: strictSettings),
        .target(name: "ChatModels", dependencies: ["ChatJSON"], swiftSettings: strictSettings),

        // MARK: A lock ThreadSanitizer can follow, shared by the modules below (package access)
        .target(name: "ChatLocking", swiftSettings: strictSettings),

        // MARK: What every HTTP server of ours shares (the dev server, the webhook intake, /metrics):
        // learning the port it bound, and saying why it could not listen
        .target(
            name: "ChatServing",
            dependencies: ["ChatLocking", .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Webhooks"]))],
            swiftSettings: strictSettings
        ),

        // MARK: C libraries, each behind one small Swift module
        .systemLibrary(
            name: "CCurl",
            path: "Sources/CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CLibWebSockets",
            path: "Sources/CLibWebSockets",
            pkgConfig: "libwebsockets",
            providers: [.apt(["libwebsockets-dev"])]
        ),
        // libcrypto, for SHA-256 and HMAC in the client (see ChatTransport's SHA256Hasher for why);
        // libwebsockets-dev already depends on its headers.
        .systemLibrary(
            name: "COpenSSLCrypto",
            path: "Sources/COpenSSLCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CMagic",
            path: "Sources/CMagic",
            providers: [.apt(["libmagic-dev"])]
        ),
        .target(
            name: "ChatTransport",
            dependencies: ["CCurl", "CLibWebSockets", "COpenSSLCrypto", "ChatLocking", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),
        .target(name: "FileSniffing", dependencies: ["CMagic", "ChatLocking"], swiftSettings: strictSettings),

        // MARK: Client and bots
        .target(
            name: "ChatClient",
            dependencies: [
                "ChatModels", "ChatTransport", "ChatLocking",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "ChatBotKit",
            dependencies: [
                "ChatClient", "ChatModels", "ChatTransport", "ChatLocking",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        // MARK: AI assistants: language models over the OpenAI-compatible Chat Completions API
        // (streamed through ChatTransport's libcurl, no NIO), Codable tools, conversation memory
        .target(
            name: "ChatBotKitAI",
            dependencies: ["ChatBotKit", "ChatClient", "ChatModels", "ChatTransport", "ChatLocking"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "ChatBotKitMCP",
            dependencies: [
                "ChatBotKitAI", "ChatModels", "ChatLocking", .product(name: "Logging", package: "swift-log"),
                .product(name: "MCP", package: "swift-sdk", condition: .when(traits: ["MCP"])),
            ],
            swiftSettings: strictSettings
        ),
        // MARK: Bots that take their events (and custom commands) by HTTP: the webhook server,
        // the webhook and custom-command intakes, on Hummingbird
        .target(
            name: "ChatBotKitWebhooks",
            dependencies: [
                "ChatBotKit", "ChatClient", "ChatJSON", "ChatModels", "ChatLocking", "ChatServing",
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["Webhooks"])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Webhooks"])),
                // gzip of webhook bodies (the service's `webhook_compression_algorithm`).
                .product(name: "CompressNIO", package: "compress-nio", condition: .when(traits: ["Webhooks"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Webhooks"])),
            ],
            swiftSettings: strictSettings
        ),
        // MARK: bots.yaml: parsing, bot kinds, reloading
        .target(
            name: "ChatBotKitConfiguration",
            dependencies: [
                "ChatBotKit", "ChatBotKitAI", "ChatClient", "ChatModels", "ChatLocking",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Yams", package: "Yams", condition: .when(traits: ["Configuration"])),
            ],
            swiftSettings: strictSettings
        ),

        // MARK: Tracing: spans to an OpenTelemetry collector (OTLP/HTTP), W3C trace context
        .target(
            name: "ChatTelemetry",
            dependencies: [
                "ChatTransport", "ChatModels", "ChatLocking",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),

        // MARK: Scale-out: channel leases in PostgreSQL, for bots run on several nodes
        .target(
            name: "ChatBotKitPostgres",
            dependencies: [
                "ChatBotKitConfiguration", "ChatBotKit", "ChatModels", "ChatLocking",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Tools"])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),

        // MARK: Dev server
        .target(
            name: "ChatDevServer",
            dependencies: [
                "ChatModels", "ChatLocking", "ChatServing",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Tools"])),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket", condition: .when(traits: ["Tools"])),
                .product(name: "CompressNIO", package: "compress-nio", condition: .when(traits: ["Tools"])),
                .product(name: "GRDB", package: "GRDB.swift", condition: .when(traits: ["Tools"])),
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["Tools"])),
                .product(name: "JWTKit", package: "jwt-kit", condition: .when(traits: ["Tools"])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            // The web playground's HTML, CSS and JavaScript modules, served as written (no build step).
            resources: [.copy("Playground/Site")],
            swiftSettings: strictSettings
        ),
        // MARK: Test kits
        // What any test waits and writes with: `eventually`, ScratchFolder, Recorder (and, package
        // access, the custom payload the model and client tests share). Apart from ChatBotKitTesting,
        // which re-exports it, because that one runs a dev server and bots: the model, transport
        // and dev server tests use these without building what they do not test.
        .target(
            name: "ChatTestSupport", dependencies: ["ChatModels", "ChatLocking", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings),
        .target(
            name: "ChatBotKitTesting",
            dependencies: [
                "ChatTestSupport", "ChatBotKitWebhooks", "ChatBotKit", "ChatClient", "ChatDevServer", "ChatModels", "ChatLocking",
                // TestWebPages: a loopback web site for the dev server's link previews to fetch.
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Tools"])),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // TestModelServer writes its tiny model with this script.
            resources: [.copy("Resources/tiny_model.py")],
            swiftSettings: strictSettings
        ),

        // MARK: Examples
        .target(
            name: "WorkoutBot",
            dependencies: ["ChatBotKitConfiguration", "ChatBotKit", "ChatBotKitAI", .target(name: "ChatBotKitMCP", condition: .when(traits: ["MCP"])), .product(name: "GRDB", package: "GRDB.swift", condition: .when(traits: ["Tools"]))],
            path: "Examples/WorkoutBot/Sources",
            swiftSettings: strictSettings
        ),
        .target(
            name: "ModerationBot",
            dependencies: ["ChatBotKitConfiguration", "ChatBotKit", "FileSniffing"],
            path: "Examples/ModerationBot/Sources",
            swiftSettings: strictSettings
        ),
        .target(
            name: "ArchiveBot",
            dependencies: ["ChatBotKitConfiguration", "ChatBotKit", "ChatClient"],
            path: "Examples/ArchiveBot/Sources",
            swiftSettings: strictSettings
        ),

        // MARK: CLI: the tool as a library, for executables of your own bot kinds, and `bots`,
        // the tool with the three examples
        .target(
            name: "BotsCLI",
            dependencies: [
                "ChatBotKitWebhooks", "ChatBotKitConfiguration", "ChatBotKit", "ChatBotKitPostgres", "ChatTelemetry", "ChatDevServer", "ChatServing", "ChatLocking",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Tools"])),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: ["Tools"])),
                // Serves /metrics; the dev server already builds it.
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Tools"])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(name: "bots", dependencies: ["BotsCLI", "WorkoutBot", "ModerationBot", "ArchiveBot"], swiftSettings: strictSettings),
        // A bot kind of your own with the whole tool, laid out as `bots init coach` writes it:
        // the README's coach as a kind, `coach` the tool for it, and its tests.
        .target(name: "CoachBot", dependencies: ["ChatBotKitConfiguration", "ChatBotKit"], path: "Examples/CoachBot/Sources/CoachBot", swiftSettings: strictSettings),
        .executableTarget(
            name: "coach", dependencies: ["BotsCLI", "CoachBot"], path: "Examples/CoachBot/Sources/coach", swiftSettings: strictSettings),

        // MARK: Benchmarks (run with `make bench`, release build)
        .executableTarget(
            name: "ChatBenchmarks",
            dependencies: ["ChatBotKitWebhooks", "ChatBotKitConfiguration", 
                "ChatModels", "ChatClient", "ChatBotKit", "ChatBotKitPostgres", "ChatBotKitTesting", "ChatDevServer", "ChatTelemetry", "WorkoutBot",
                "ModerationBot", "FileSniffing",
                .product(name: "CompressNIO", package: "compress-nio", condition: .when(traits: ["Tools"])),
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["Tools"])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: ["Tools"])),
            ],
            path: "Benchmarks/ChatBenchmarks",
            swiftSettings: strictSettings
        ),

        // MARK: Tests
        .testTarget(
            name: "ChatModelsTests",
            // ChatTestSupport, not ChatBotKitTesting: the model's tests build nothing above the model.
            dependencies: ["ChatModels", "ChatTestSupport", .product(name: "PropertyBased", package: "swift-property-based", condition: .when(traits: ["Tools"]))],
            resources: [.copy("Fixtures")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ChatDevServerTests",
            dependencies: ["ChatDevServer", "ChatModels", "ChatServing", "ChatTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ChatTransportTests",
            dependencies: ["ChatTransport", "ChatDevServer", "ChatLocking", "ChatTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ChatClientTests",
            dependencies: [
                // ChatBotKitTesting for its test server (TestChatServer), link-preview pages and media fixtures.
                "ChatClient", "ChatDevServer", "ChatBotKitTesting", "ChatTestSupport", "ChatTransport", "ChatLocking",
                .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: ["Tools"])),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CoachBotTests",
            dependencies: ["ChatBotKitConfiguration", "CoachBot", "ChatBotKit", "ChatBotKitTesting"],
            path: "Examples/CoachBot/Tests/CoachBotTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ChatBotKitTests",
            // ChatBotKitPostgres: the lease keeper is tested against the store a deployment uses.
            dependencies: ["ChatBotKitWebhooks", "ChatBotKitConfiguration", 
                "BotsCLI", "ChatBotKit", "ChatBotKitPostgres", "ChatBotKitTesting", "ChatDevServer", "ChatLocking", .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: ["Tools"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Tools"])),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ChatBotKitAITests",
            dependencies: [
                "ChatBotKitAI", "ChatBotKit", "ChatBotKitTesting", "ChatClient", "ChatDevServer", "ChatModels", "ChatTransport", "ChatLocking",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ChatBotKitMCPTests",
            dependencies: ["ChatBotKitMCP", "ChatBotKitAI", "ChatBotKitTesting", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ChatTelemetryTests",
            dependencies: [
                "ChatTelemetry", "ChatBotKit", "ChatBotKitTesting", "ChatDevServer", "ChatModels", "ChatLocking",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Tools"])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: ["Tools"])),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ScaleOutTests",
            dependencies: [
                "ChatBotKit", "ChatBotKitAI", "ChatBotKitPostgres", "ChatBotKitTesting", "ChatClient",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Tools"])),
                .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: ["Tools"])),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ExamplesTests",
            dependencies: ["ChatBotKitConfiguration", "ChatBotKitWebhooks", "ChatBotKitAI",
                "WorkoutBot", "ModerationBot", "ArchiveBot", "ChatBotKitTesting", "ChatDevServer", "FileSniffing", "ChatLocking",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift", condition: .when(traits: ["Tools"])),
                .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: ["Tools"])),
            ],
            swiftSettings: strictSettings
        ),
    ]
)

// MARK: Sanitizer builds (the Makefile's test-sanitizers)
// CHATBOTKIT_SANITIZE=thread or address instruments our own targets only, in the plain build's
// scratch path: the dependencies (SwiftNIO, Hummingbird, BoringSSL, GRDB, PostgresNIO, …) are
// built once, uninstrumented, and only our code is compiled again (about 1.5 minutes instead of
// about 15 for a `--sanitize` build of everything). The sanitizers report what our own code
// does; calls into the dependencies are not checked inside them. Nothing changes without the
// variable (a package that depends on ChatBotKit never sets it: unsafe flags are refused in a
// dependency).
if let sanitizer = Context.environment["CHATBOTKIT_SANITIZE"], !sanitizer.isEmpty {
    for target in package.targets where target.type != .system {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-sanitize=\(sanitizer)"])]
        target.linkerSettings = (target.linkerSettings ?? []) + [.unsafeFlags(["-sanitize=\(sanitizer)"])]
    }
}
