import ChatClient
import ChatModels
import Logging
import ServiceLifecycle

/// Runs bots side by side, each as its own service with its own user and connection. On a
/// graceful shutdown (SIGINT or SIGTERM when run by a `ServiceGroup` with those signals) every
/// bot stops taking messages and lets its running handlers finish.
public struct BotRunner: Service {
    /// The bots' services.
    public let services: [BotService]
    let logger: Logger

    /// A runner for `services`.
    public init(services: [BotService], logger: Logger = Logger(label: "chatbotkit.runner")) {
        self.services = services
        self.logger = logger
    }

    /// Runs every bot until shutdown; a bot that fails to start stops the others.
    public func run() async throws {
        try await withThrowingDiscardingTaskGroup { group in
            for service in services {
                group.addTask { try await service.run() }
            }
        }
        logger.info("All bots stopped")
    }

    /// Waits until every bot is connected and watching its channels; throws if one cannot start.
    public func waitUntilReady() async throws {
        for service in services { try await service.waitUntilReady() }
    }
}
