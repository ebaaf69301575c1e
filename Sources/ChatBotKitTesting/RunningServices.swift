import Logging
import ServiceLifecycle

/// Runs `services` in a ServiceGroup for the duration of `body`, then shuts them down gracefully
/// (in reverse order) and waits for them to finish, as a process does at its end; if `body`
/// throws, they are cancelled instead.
public func withRunningServices<T: Sendable>(
    _ services: [any Service], logger: Logger = Logger(label: "chatbotkit.test-services"), _ body: () async throws -> T
) async throws -> T {
    let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [], logger: logger))
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        do {
            let result = try await body()
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return result
        } catch {
            tasks.cancelAll()
            throw error
        }
    }
}
