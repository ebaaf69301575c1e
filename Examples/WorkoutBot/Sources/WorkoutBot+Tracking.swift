import ChatBotKit
import ChatClient
import ChatModels
import Foundation

extension WorkoutBot {
    /// Runs tracked by live location: a member who shares a live location (from any Stream
    /// client) is followed: each move adds the distance from the last position, and when they
    /// stop sharing, or the share runs out (the bot's reminder at its end, which the service
    /// keeps), the run is logged as a workout and answered with the week's summary. The
    /// message's first word names the workout (`ride`, `walk`, …; `run` otherwise). Moves are
    /// counted once even when delivered again: a position not newer than the last is skipped.
    static func addTracking(to bot: Bot, store: WorkoutStore) {
        bot.onLocation { location, context in
            guard location.isLive, let userId = context.message.user?.id, case .location(_, let change) = context.trigger else { return }
            switch change {
            case .shared:
                guard let endAt = location.endAt, location.isShared(at: Date()) else { return }
                try await startTracking(location, of: userId, until: endAt, context: context, store: store)
            case .moved:
                try store.move(context.message.id, toLatitude: location.latitude, longitude: location.longitude, at: location.updatedAt ?? Date())
            case .stopped:
                try await finishTracking(location, context: context, store: store)
                // Its reminder at the share's end has nothing left to do (none when the share was
                // not tracked: made before the bot followed the channel).
                try await forgetReminder(of: context.message.id, context: context)
            }
        }
        bot.onReminderDue { reminder, context in
            guard let location = context.message.sharedLocation, location.isLive else { return }
            if context.message.type != .deleted, let endAt = location.endAt {
                // Its sharer put the end off: the reminder follows it.
                if location.isShared(at: Date()) {
                    try await context.remind(at: endAt)
                    return
                }
                try await finishTracking(location, context: context, store: store)
            }
            try await context.client.deleteReminder(for: reminder.messageId, as: context.bot.user.id)
        }
    }

    /// The workout types a tracked run can be named as, by the first word of its message.
    static let trackedTypes: Set<String> = ["run", "ride", "walk", "hike", "swim", "row", "ski"]

    private static func startTracking(
        _ location: SharedLocation, of userId: String, until endAt: Date, context: BotContext, store: WorkoutStore
    ) async throws {
        let firstWord = context.message.text.split(separator: " ").first.map { $0.lowercased() } ?? ""
        let type = trackedTypes.contains(firstWord) ? firstWord : "run"
        let startedAt = context.message.createdAt ?? Date()
        let track = WorkoutStore.Track(
            messageId: context.message.id, userId: userId, type: type, startedAt: startedAt, latitude: location.latitude,
            longitude: location.longitude, lastAt: location.updatedAt ?? startedAt, meters: 0, isFinished: false)
        guard try store.startTrack(track) else { return }
        try await context.remind(at: endAt)
        try await context.reply(
            text: "Tracking your \(type) until \(WorkoutReports.clockTime(endAt)) UTC. Stop sharing your location when you finish and I'll log it.",
            inThread: true)
    }

    /// Logs a tracked run once, at its last position, and answers with the week's summary.
    private static func finishTracking(_ location: SharedLocation, context: BotContext, store: WorkoutStore) async throws {
        let message = context.message
        try store.move(message.id, toLatitude: location.latitude, longitude: location.longitude, at: location.updatedAt ?? Date())
        guard let track = try store.finishTrack(message.id) else { return }
        let endedAt = min(location.endAt ?? Date(), Date())
        let seconds = max(0, Int(endedAt.timeIntervalSince(track.startedAt).rounded()))
        let meters = Int(track.meters.rounded())
        guard meters > 0 else {
            try await context.reply(text: "Your \(track.type) did not move from where it started, so nothing was logged.", inThread: true)
            return
        }
        let record = WorkoutStore.Record(
            messageId: message.id, userId: track.userId, type: track.type, distanceMeters: meters, durationSeconds: seconds, energyCal: 0,
            date: message.createdAt ?? track.startedAt, cid: message.cid)
        try store.record(record, position: 0)
        let prefix = "Logged your \(track.type): \(WorkoutReports.kilometers(meters)) km in \(WorkoutReports.minutesAndSeconds(seconds)). "
        try await replySummary(of: track.userId, weekOf: record.date, prefix: prefix, context: context, store: store)
    }
}
