import ChatBotKit
import ChatBotKitAI
import Foundation

/// The workout bot's tools over its own store, for the model that answers questions.
enum WorkoutTools {
    /// All of them, over `store`.
    static func toolBox(store: WorkoutStore) throws -> ToolBox {
        var tools = ToolBox()
        try tools.add(WeekTotals(store: store))
        try tools.add(RecentWorkouts(store: store))
        return tools
    }
}

extension WorkoutBot {
    /// Where the tools' declared schemas differ from their arguments' types (empty when they
    /// agree; the example's tests check it).
    public static func toolSchemaDifferences() throws -> [String] {
        try ToolBox.schemaDifferences(of: WeekTotals.self) + ToolBox.schemaDifferences(of: RecentWorkouts.self)
    }
}

/// The asking user's totals for a week, against their weekly goal; it puts the week's
/// `workout-summary` card on the reply.
struct WeekTotals: Tool {
    struct Arguments: Decodable, Sendable {
        /// 0 for this week, 1 for last week, ...
        var weeksAgo: Int?

        enum CodingKeys: String, CodingKey { case weeksAgo = "weeks_ago" }
    }

    static let name = "week_totals"
    static let description = "The asking user's workout totals for one week (distance, time, energy, count) and their weekly goal's progress."
    static let parameters: JSONSchema? = .object([
        JSONSchema.Property("weeks_ago", .integer("0 for this week (the default), 1 for last week, and so on"), required: false)
    ])

    let store: WorkoutStore

    func call(_ arguments: Arguments, context: ToolContext) async throws -> ToolOutput {
        guard let userId = context.userId else { return .error("no user asked") }
        let weeksAgo = arguments.weeksAgo ?? 0
        guard (0...520).contains(weeksAgo) else { return .error("arguments.weeks_ago: must be between 0 and 520, found \(weeksAgo)") }
        let start = WorkoutReports.weekStart(of: Date().addingTimeInterval(-Double(weeksAgo) * 7 * 86_400))
        let end = start.addingTimeInterval(7 * 86_400)
        let week = try store.workouts(of: userId, since: start).filter { $0.date < end }
        var summary = WorkoutSummaryPayload(
            userId: userId, weekStart: WorkoutReports.day(start), distanceMeters: week.reduce(0) { $0 + $1.distanceMeters },
            durationSeconds: week.reduce(0) { $0 + $1.durationSeconds }, energyCal: week.reduce(0) { $0 + $1.energyCal }, count: week.count)
        if let goal = try store.goal(of: userId) {
            summary.goalDistanceMeters = goal.weeklyMeters
            summary.goalType = goal.type
            summary.goalProgressMeters = week.filter { goal.type == nil || $0.type == goal.type }.reduce(0) { $0 + $1.distanceMeters }
        }
        var json: JSONObject = [
            "week_start": .string(summary.weekStart), "workouts": .number(JSONNumber(summary.count)),
            "distance_km": .number(JSONNumber(Double(summary.distanceMeters) / 1000)),
            "duration_minutes": .number(JSONNumber(summary.durationSeconds / 60)), "energy_kcal": .number(JSONNumber(summary.energyCal)),
        ]
        if let goal = summary.goalDistanceMeters, let progress = summary.goalProgressMeters {
            json["goal_km"] = .number(JSONNumber(Double(goal) / 1000))
            json["goal_progress_km"] = .number(JSONNumber(Double(progress) / 1000))
            json["goal_type"] = summary.goalType.map(RawJSON.string) ?? .null
        }
        return ToolOutput(json: .object(json), attachments: [AnyAttachmentPayload(payload: summary)])
    }
}

/// The asking user's latest workouts.
struct RecentWorkouts: Tool {
    struct Arguments: Decodable, Sendable {
        /// How many, newest first.
        var limit: Int?
        /// Only workouts of this type (`run`, `ride`, ...).
        var type: String?
    }

    static let name = "recent_workouts"
    static let description = "The asking user's latest workouts, newest first: type, date, distance, duration."
    static let parameters: JSONSchema? = .object([
        JSONSchema.Property("limit", .integer("how many, 10 by default, at most 50"), required: false),
        JSONSchema.Property("type", .string("only this type of workout: run, ride, swim, ..."), required: false),
    ])

    let store: WorkoutStore

    func call(_ arguments: Arguments, context: ToolContext) async throws -> ToolOutput {
        guard let userId = context.userId else { return .error("no user asked") }
        let limit = min(max(arguments.limit ?? 10, 1), 50)
        let records = try store.workouts(of: userId).filter { arguments.type == nil || $0.type == arguments.type }
            .sorted { $0.date > $1.date }.prefix(limit)
        let list: [RawJSON] = records.map { record in
            [
                "type": .string(record.type), "date": .string(WorkoutReports.day(record.date)),
                "distance_km": .number(JSONNumber(Double(record.distanceMeters) / 1000)),
                "duration_minutes": .number(JSONNumber(record.durationSeconds / 60)),
            ]
        }
        return ToolOutput(json: ["workouts": .array(list)])
    }
}
