import ChatLocking
import ChatModels
import CoreMetrics
import Metrics
import Logging

/// Counts the calls a client holds while the service is unreachable, and says once when an
/// outage starts and once when it ends, so that an operator reads two notices per outage
/// instead of a line per retry (the retries themselves log at debug).
final class OutageWatch: Sendable {
    private struct State {
        var held = 0
        var outageStart: ContinuousClock.Instant?
    }

    private let state = Locked(State())
    private let metrics: ClientMetrics
    private let user: String
    private let tolerance: Duration
    private let logger: Logger

    init(tolerance: Duration, user: String?, metrics: ClientMetrics, logger: Logger) {
        self.tolerance = tolerance
        self.logger = logger
        self.metrics = metrics
        self.user = user ?? "server"
    }

    /// The gauge, looked up on each use as the client's other metrics are (bootstrap may come
    /// after the client was made).
    private func record(_ held: Int) {
        Gauge(label: "chatbotkit_calls_held", dimensions: [("user", user)], factory: metrics.factory).record(held)
    }

    /// Calls waiting right now for the service to come back.
    var heldCalls: Int { state.withLock { $0.held } }

    /// A call starts waiting out a transient failure; the first one of an outage says so.
    func hold(_ operation: String, failure: String) {
        let (held, startsOutage) = state.withLock { state -> (Int, Bool) in
            state.held += 1
            defer { if state.outageStart == nil { state.outageStart = .now } }
            return (state.held, state.outageStart == nil)
        }
        record(held)
        guard startsOutage else { return }
        logger.notice(
            "service unreachable; holding \(held) call\(held == 1 ? "" : "s") for up to \(DurationText.format(tolerance))",
            metadata: ["operation": "\(operation)", "failure": "\(failure)"])
    }

    /// A held call is done waiting: the service answered it (`recovered`), or it gave up or was
    /// cancelled. The first answer after an outage says how long the outage lasted.
    func release(recovered: Bool) {
        let (held, outage) = state.withLock { state -> (Int, Duration?) in
            state.held -= 1
            guard recovered, let start = state.outageStart else {
                // Every held call gave up: the next failure starts a new outage, and says so.
                if state.held == 0 { state.outageStart = nil }
                return (state.held, nil)
            }
            state.outageStart = nil
            return (state.held, .now - start)
        }
        record(held)
        guard let outage else { return }
        logger.notice("service back after \(Self.seconds(outage))")
    }

    /// `42s`, or `1.3s` below ten seconds.
    static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return value < 10 ? "\((value * 10).rounded() / 10)s" : "\(Int(value.rounded()))s"
    }
}
