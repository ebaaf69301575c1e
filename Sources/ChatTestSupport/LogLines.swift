import ChatLocking
import Logging

/// The lines a logger wrote, with their levels: for tests that check what a component says.
///
/// ```swift
/// let log = LogLines()
/// let service = BotService(bot: bot, client: client, channels: channels, logger: log.logger)
/// #expect(log.lines(at: .warning) == ["Bot keeper lists messaging:a 3 times; it is joined and watched once"])
/// ```
public final class LogLines: Sendable {
    private let recorded = Locked<[(Logger.Level, String)]>([])

    /// An empty record.
    public init() {}

    /// A logger writing here, at every level.
    public var logger: Logger {
        var logger = Logger(label: "test-log") { _ in Handler(lines: self) }
        logger.logLevel = .trace
        return logger
    }

    /// The messages written at `level`, in the order written.
    public func lines(at level: Logger.Level) -> [String] {
        recorded.withLock { $0.filter { $0.0 == level }.map(\.1) }
    }

    fileprivate func append(_ level: Logger.Level, _ text: String) {
        recorded.withLock { $0.append((level, text)) }
    }

    private struct Handler: LogHandler {
        let lines: LogLines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) { lines.append(event.level, "\(event.message)") }
    }
}
