import ChatClient
import ChatLocking
import ChatModels
import Foundation
import Logging

extension Bot {
    /// A scheduled handler: its schedule and what it does.
    struct ScheduleRoute: Sendable {
        let schedule: Schedule
        let handler: @Sendable (ScheduledRun) async throws -> Void
    }

    /// Runs `handler` on `schedule`, once in each of the bot's channels (on each node, in the
    /// channels it holds): `bot.onSchedule(.weekly(on: .monday, at: 9), name: "report") { run in
    /// try await run.post(text: "…") }`. A run is handled in order with the channel's messages.
    /// With a checkpoint (``BotService/CatchUp``), the last run of each schedule that fell while
    /// the bot was stopped is made up when it starts again (``ScheduledRun/isMadeUp``), as far
    /// back as it catches up; without one, none is. A second schedule with the same
    /// name replaces the first. A handler that throws is logged and reported to `onError`
    /// (without a context); middleware does not run around it, as it concerns no message.
    public func onSchedule(_ schedule: Schedule, name: String, handler: @escaping @Sendable (ScheduledRun) async throws -> Void) {
        routes.withLock { $0.schedules[name] = ScheduleRoute(schedule: schedule, handler: handler) }
    }

    /// The bot's schedules by name.
    public var schedules: [String: Schedule] { routes.withLock { $0.schedules.mapValues(\.schedule) } }

    /// Runs the scheduled handler `name` for its run at `scheduledAt` in `channel`.
    func runSchedule(_ name: String, at scheduledAt: Date, isMadeUp: Bool, channel: ChatChannel, logger: Logger, postKey: String) async {
        let routes = self.routes.withLock { $0 }
        // Its schedule was removed (a reconfiguration) after the run was queued.
        guard let route = routes.schedules[name] else { return }
        let run = ScheduledRun(
            name: name, scheduledAt: scheduledAt, isMadeUp: isMadeUp, channel: channel, bot: self, logger: logger, postKey: postKey)
        do {
            try await route.handler(run)
        } catch {
            let botError = BotError(
                code: .handlerFailed, message: "the scheduled handler \(name) of bot \(self.name) failed in \(channel.cid): \(error)",
                underlying: error)
            await report(botError, in: channel, logger: run.logger, context: nil, routes: routes)
        }
    }
}
