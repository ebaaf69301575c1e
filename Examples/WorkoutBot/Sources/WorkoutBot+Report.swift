import ChatBotKit
import ChatModels
import Foundation

extension AttachmentType {
    /// The workout bot's scheduled report: a channel's members' totals of the last seven days.
    public static let workoutReport = Self(rawValue: "workout-report")
}

/// The members' totals of the seven days before a scheduled report, the farthest first.
public struct WorkoutReportPayload: AttachmentPayload {
    /// `.workoutReport`.
    public static let type: AttachmentType = .workoutReport

    /// One member's line.
    public struct Entry: Codable, Hashable, Sendable {
        /// Whose.
        public var userId: String
        /// Meters.
        public var distanceMeters: Int
        /// How many workouts.
        public var count: Int

        private enum CodingKeys: String, CodingKey {
            case userId = "user_id"
            case distanceMeters = "distance_meters"
            case count
        }
    }

    /// The start of the period (RFC 3339).
    public var since: String
    /// Its end: the report's scheduled time.
    public var until: String
    /// The members who worked out, the farthest first.
    public var entries: [Entry]
}

extension WorkoutBot {
    /// `report: mon 09:00`: on that schedule, in each of its channels, the bot posts the
    /// members' totals of the seven days before, as text and a `workout-report`, pinned until
    /// the next report is due; nothing when none of them worked out.
    static func addReport(to bot: Bot, on schedule: Schedule, store: WorkoutStore) {
        bot.onSchedule(schedule, name: "report") { run in
            guard let posted = try await report(run, store: store) else { return }
            let next = schedule.nextRun(after: run.scheduledAt)
            // A made-up run may be followed so closely by the next one that its pin would already be over.
            guard next > Date() else { return }
            try await run.client.pinMessage(posted.id, until: next, as: run.bot.user.id)
        }
    }

    /// Posts the report of the seven days before `run`; nil when there is nothing to report.
    static func report(_ run: ScheduledRun, store: WorkoutStore) async throws -> Message? {
        let until = run.scheduledAt
        let since = until.addingTimeInterval(-7 * 86_400)
        let totals = try store.totals(from: since, to: until)
        guard !totals.isEmpty else { return nil }
        // Workouts are kept per user: a channel's report names its own members only.
        var members: Set<String> = []
        var offset = 0
        while true {
            let page = try await run.channel.queryMembers(limit: 100, offset: offset)
            members.formUnion(page.map(\.userId))
            guard page.count == 100 else { break }
            offset += 100
        }
        let entries = totals.filter { members.contains($0.userId) && $0.userId != run.bot.user.id }
            .map { WorkoutReportPayload.Entry(userId: $0.userId, distanceMeters: $0.distanceMeters, count: $0.count) }
        guard !entries.isEmpty else { return nil }
        let lines = entries.map { "\($0.userId) \(WorkoutReports.kilometers($0.distanceMeters)) km (\($0.count) \($0.count == 1 ? "workout" : "workouts"))" }
        let report = WorkoutReportPayload(since: RFC3339.string(from: since), until: RFC3339.string(from: until), entries: entries)
        return try await run.post(text: "The last 7 days: \(lines.joined(separator: ", ")).", attachments: [AnyAttachmentPayload(payload: report)])
    }
}
