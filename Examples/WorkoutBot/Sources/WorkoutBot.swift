import ChatBotKitConfiguration
import ChatBotKit
import ChatBotKitAI
import ChatClient
import ChatModels
import Foundation
import Logging

/// The workout-tracking bot: it keeps every `workout` attachment per user, answers each with a
/// `workout-summary` of the user's week, tells the sender which field of a malformed workout is
/// wrong, follows edits, deletions and undeletions of workouts, answers `/workouts` with a CSV export and
/// an SVG chart, answers the custom command `/log run 5km 25m` with the workout to post, and
/// answers questions that mention it through a language model (`llm:` in bots.yaml), streamed.
public enum WorkoutBot: BotKind {
    /// `kind: workout`.
    public static let name = "workout"

    /// A workout, the export, and `/log` (where custom commands are answered).
    public static let samples = [
        BotKindSample(
            #"--attachment '{"type":"workout","workout-type":"run","workout-distance-meters":5000,"workout-duration-seconds":1500,"workout-energy-cal":400}'"#),
        BotKindSample("--text /workouts"),
        BotKindSample("--text '/log run 5km 25m' --press log", customCommand: "log"),
        BotKindSample("--text /goal"),
        BotKindSample("--text '@workout-bot how far did I run this week, and am I on track for my goal?'"),
    ]

    /// Builds the bot from its `bots.yaml` entry (options: `database`, a path; `report`, a
    /// schedule such as `mon 09:00`; `welcome`, true to greet new members; `nudge`, a duration
    /// such as `2d` after which a member who posted no workout since is nudged; `plan_closes`, how
    /// long a `/plan` poll stays open, `1d` by default; `llm`, its own model settings over the top's;
    /// `mcp`, MCP servers whose tools its model may call).
    public static func makeBot(_ entry: BotsConfiguration.BotEntry, environment: BotKindEnvironment) throws -> Bot {
        try entry.node.allowOnly(BotsConfiguration.commonBotKeys + ["database", "report", "welcome", "nudge", "plan_closes", "llm", "mcp"])
        let report = try entry.node["report"]?.schedule()
        let welcome = try entry.node["welcome"]?.bool() ?? false
        let nudge = try entry.node["nudge"]?.duration()
        let planCloses = try entry.node["plan_closes"]?.duration() ?? .seconds(86_400)
        let store = try WorkoutStore(url: try environment.path(entry.node["database"], default: "\(entry.name)/workouts.sqlite"))
        var assistant = try environment.model(for: entry).map { settings in
            try Self.assistant(model: settings.makeModel(), store: store, systemPrompt: settings.systemPrompt, maxTokens: settings.maxTokens)
        }
        assistant?.toolSources = try mcpToolSources(entry, logger: environment.logger)
        if assistant == nil {
            environment.logger.warning("Bot \(entry.name) answers no questions: \(noModelHelp)")
        }
        return make(
            name: entry.name, user: User(id: entry.user, name: "Workout bot"), store: store, report: report, welcome: welcome, nudge: nudge,
            planCloses: planCloses, assistant: assistant, fellowBots: environment.fellowBots)
    }

    /// The bot, with its handlers, storing into `store`, posting the last seven days' totals in
    /// its channels on `report`, if given, and with `welcome`, greeting each member added to its
    /// channels (but not `fellowBots`, the user ids of the bots run beside it), and each channel
    /// it is added to, with what it does; with `nudge`, nudging a member who posted no workout
    /// for that long after their last; `/plan` polls close after `planCloses`.
    public static func make(
        name: String, user: User, store: WorkoutStore, report: Schedule? = nil, welcome: Bool = false, nudge: Duration? = nil,
        planCloses: Duration = .seconds(86_400), assistant: Assistant? = nil, fellowBots: Set<String> = []
    ) -> Bot {
        let bot = Bot(name: name, user: user)
        addQuestions(to: bot, assistant: assistant)
        bot.on(WorkoutAttachmentPayload.self) { workout, context in
            try await record(workout, context: context, store: store, nudge: nudge)
        }
        bot.onDecodingFailure { failure, context in
            guard failure.type == .workout else { return }
            try await context.reply(
                text: complaint(field: failure.fieldPath, reason: failure.reason) + " Nothing was recorded.")
        }
        bot.command("workouts") { _, context in
            try await export(context: context, store: store)
        }
        addLogCommand(to: bot)
        addGoalConversation(to: bot, store: store)
        if let report { addReport(to: bot, on: report, store: store) }
        if let nudge { addNudges(to: bot, after: nudge, store: store) }
        addPlan(to: bot, closesAfter: planCloses)
        addTracking(to: bot, store: store)
        if welcome {
            bot.onEvent(.memberAdded) { context in
                guard let member = context.event.member, !fellowBots.contains(member.userId) else { return }
                try await context.post(text: welcomeText(for: member.user?.name ?? member.userId))
            }
            bot.onAddedToChannel { context in try await context.post(text: channelGreeting) }
        }
        // A workout fixed by an edit replaces what was stored for the message, and a deleted
        // workout leaves the totals; either way the sender gets the week's new summary.
        bot.onMessageUpdated { context in
            // A message sharing a location holds no workout attachments: its workout is the
            // tracked run, which an edit of its text leaves as it is.
            guard context.message.sharedLocation == nil else { return }
            try await recordEdit(context: context, store: store)
        }
        bot.onMessageDeleted { deletion, context in
            guard let userId = deletion.message.user?.id, try store.remove(messageId: deletion.message.id) > 0 else { return }
            try await replySummary(of: userId, weekOf: deletion.message.createdAt ?? Date(), prefix: "Workout removed. ", context: context, store: store)
        }
        // A moderator's undelete brings a deleted workout back into the totals.
        bot.onMessageUndeleted { context in
            try await recordEdit(context: context, store: store, isRestored: true)
        }
        // Messages that leave at once, with no message.deleted each (a truncated or deleted
        // channel; a user banned with their messages, deleted or deactivated), take their
        // workouts out of the totals too.
        bot.onChannelTruncated { truncation, _ in
            let removed = try store.remove(in: truncation.cid, postedUpTo: truncation.truncatedAt)
            logForgotten(removed, of: "a \(truncation.isChannelDeleted ? "deleted" : "truncated") channel", in: truncation.cid)
        }
        bot.onUserMessagesDeleted { deletion, _ in
            let removed = try store.remove(in: deletion.cid, userId: deletion.user.id, postedUpTo: deletion.deletedAt)
            logForgotten(removed, of: "\(deletion.user.id)'s deleted messages", in: deletion.cid)
        }
        return bot
    }

    static func record(
        _ workout: ChatMessageAttachment<WorkoutAttachmentPayload>, context: BotContext, store: WorkoutStore, nudge: Duration? = nil
    ) async throws {
        guard let userId = context.message.user?.id else { return }
        if let problem = problem(workout.payload) {
            try await context.reply(text: complaint(problem))
            return
        }
        try store.record(storedRecord(workout.payload, of: context.message, userId: userId), position: workout.id.index)
        // One summary per message: the router hands over a message's attachments in order, so
        // the last workout that can be stored answers for all of them.
        guard !hasStorableWorkout(after: workout.id.index, in: context.message) else { return }
        try await replySummary(of: userId, weekOf: context.message.createdAt ?? Date(), context: context, store: store)
        if let nudge { try await scheduleNudge(for: userId, after: nudge, context: context, store: store) }
    }

    /// Whether `message` has a workout after position `index` that decodes and can be stored.
    /// Only the later attachments are decoded: a message with one workout decodes nothing here.
    static func hasStorableWorkout(after index: Int, in message: Message) -> Bool {
        message.attachments.contains { attachment in
            guard attachment.id.index > index, case .success(let later) = attachment.decode(WorkoutAttachmentPayload.self) else { return false }
            return problem(later.payload) == nil
        }
    }

    /// An edited message: its workouts replace the stored ones; a malformed one is named again.
    /// An undeleted one (`isRestored`) is stored again without naming what is wrong twice:
    /// the sender heard it when the message was first posted.
    static func recordEdit(context: BotContext, store: WorkoutStore, isRestored: Bool = false) async throws {
        let message = context.message
        guard let userId = message.user?.id else { return }
        var records: [(record: WorkoutStore.Record, position: Int)] = []
        var complaints: [String] = []
        for result in message.decodeAttachments(payloadType: WorkoutAttachmentPayload.self) {
            switch result {
            case .success(let workout):
                if let problem = problem(workout.payload) {
                    complaints.append(complaint(problem, edited: true))
                } else {
                    records.append((storedRecord(workout.payload, of: message, userId: userId), workout.id.index))
                }
            case .failure(let failure):
                complaints.append(complaint(field: failure.fieldPath, reason: failure.reason, edited: true))
            }
        }
        let changed = try store.replace(messageId: message.id, with: records)
        if !isRestored {
            for complaint in complaints { try await context.reply(text: complaint) }
        }
        if changed {
            let prefix = isRestored ? "Workout restored. " : "Workout updated. "
            try await replySummary(of: userId, weekOf: message.createdAt ?? Date(), prefix: prefix, context: context, store: store)
        }
    }

    /// What the bot does, as its greetings say it.
    static let howItWorks = "Post a workout attachment (or /log run 5km 25m, or share your live location while you run) "
        + "and I keep your week's totals; /goal sets a weekly goal and /workouts exports them."

    /// How a new member is greeted.
    public static func welcomeText(for name: String) -> String { "Welcome, \(name)! " + howItWorks }

    /// What the bot says in a channel it is added to.
    public static let channelGreeting = "Hi, I'm the workout bot. " + howItWorks

    /// What the sender is told about a workout that was not stored.
    static func complaint(_ problem: String, edited: Bool = false) -> String {
        "Your \(edited ? "edited " : "")workout could not be saved: \(problem)."
    }

    /// The complaint about a field that is wrong.
    static func complaint(field: String, reason: String, edited: Bool = false) -> String {
        complaint(wrongField(field, reason), edited: edited)
    }

    /// The problem of a field that is wrong, as complaints say it.
    static func wrongField(_ field: String, _ reason: String) -> String { "field \"\(field)\" is wrong (\(reason))" }

    /// Why a workout that decoded cannot be stored: a wrong field, or nothing measured at all
    /// (every field of the seed's payload is optional, and an empty one used to count as a
    /// workout of 0 km).
    static func problem(_ workout: WorkoutAttachmentPayload) -> String? {
        if let (field, reason) = invalidField(workout) { return wrongField(field, reason) }
        guard workout.workoutDistanceMeters != nil || workout.workoutDurationSeconds != nil || workout.workoutEnergyCal != nil else {
            return "it has no workout-distance-meters, workout-duration-seconds or workout-energy-cal"
        }
        return nil
    }

    /// The field of a workout that cannot be stored, and why.
    static func invalidField(_ workout: WorkoutAttachmentPayload) -> (field: String, reason: String)? {
        let fields = [
            ("workout-distance-meters", workout.workoutDistanceMeters), ("workout-duration-seconds", workout.workoutDurationSeconds),
            ("workout-energy-cal", workout.workoutEnergyCal),
        ]
        return fields.first { ($0.1 ?? 0) < 0 }.map { ($0.0, "it cannot be negative") }
    }

    /// Says that `count` workouts of `what` left the totals, if any did.
    static func logForgotten(_ count: Int, of what: String, in cid: ChannelId) {
        guard count > 0 else { return }
        Logger(label: "WorkoutBot").info("Forgot the workouts of \(what)", metadata: ["cid": "\(cid)", "workouts": "\(count)"])
    }

    /// The row stored for a workout posted in `message`.
    static func storedRecord(_ workout: WorkoutAttachmentPayload, of message: Message, userId: String) -> WorkoutStore.Record {
        WorkoutStore.Record(
            messageId: message.id, userId: userId, type: workout.workoutType ?? "workout", distanceMeters: workout.workoutDistanceMeters ?? 0,
            durationSeconds: workout.workoutDurationSeconds ?? 0, energyCal: workout.workoutEnergyCal ?? 0, date: message.createdAt ?? Date(),
            cid: message.cid)
    }

    /// Replies with the user's totals for the week of `date`, as text and a `workout-summary`.
    static func replySummary(of userId: String, weekOf date: Date, prefix: String = "", context: BotContext, store: WorkoutStore) async throws {
        let weekStart = WorkoutReports.weekStart(of: date)
        let week = try store.workouts(of: userId, since: weekStart)
        var summary = WorkoutSummaryPayload(
            userId: userId, weekStart: WorkoutReports.day(weekStart), distanceMeters: week.reduce(0) { $0 + $1.distanceMeters },
            durationSeconds: week.reduce(0) { $0 + $1.durationSeconds }, energyCal: week.reduce(0) { $0 + $1.energyCal }, count: week.count)
        if let goal = try store.goal(of: userId) {
            summary.goalDistanceMeters = goal.weeklyMeters
            summary.goalType = goal.type
            summary.goalProgressMeters = week.filter { goal.type == nil || $0.type == goal.type }.reduce(0) { $0 + $1.distanceMeters }
        }
        try await context.reply(text: prefix + describe(summary), attachments: [AnyAttachmentPayload(payload: summary)])
    }

    /// `This week: 3 workouts, 12.4 km, 1h 05m, 2,310 kcal.`
    static func describe(_ summary: WorkoutSummaryPayload) -> String {
        let hours = summary.durationSeconds / 3600
        let minutes = summary.durationSeconds % 3600 / 60
        let kilometers = WorkoutReports.kilometers(summary.distanceMeters)
        let plural = summary.count == 1 ? "workout" : "workouts"
        let totals = "This week: \(summary.count) \(plural), \(kilometers) km, \(hours)h \(minutes < 10 ? "0" : "")\(minutes)m, \(summary.energyCal) kcal."
        guard let goal = summary.goalDistanceMeters, let progress = summary.goalProgressMeters else { return totals }
        return totals + " " + describeGoal(meters: goal, type: summary.goalType, progress: progress)
    }

    /// `Goal: 10.0 of 30.0 km of run (33%).`, or `Goal reached: …` once it is.
    static func describeGoal(meters: Int, type: String?, progress: Int) -> String {
        let of = "\(WorkoutReports.kilometers(progress)) of \(WorkoutReports.kilometers(meters)) km\(type.map { " of \($0)" } ?? "")"
        guard progress < meters else { return "Goal reached: \(of)!" }
        return "Goal: \(of) (\(progress * 100 / max(meters, 1))%)."
    }

    static func export(context: BotContext, store: WorkoutStore) async throws {
        guard let userId = context.message.user?.id else { return }
        let records = try store.workouts(of: userId)
        guard !records.isEmpty else {
            try await context.reply(text: "No workouts recorded for you yet. Post a workout attachment first.")
            return
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("workout-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let csv = folder.appendingPathComponent("workouts-\(userId).csv")
        try Data(WorkoutReports.csv(records).utf8).write(to: csv)
        let chart = folder.appendingPathComponent("weekly-distance-\(userId).svg")
        try Data(WorkoutReports.svgChart(records, userId: userId).utf8).write(to: chart)
        try await context.reply(
            text: "Your \(records.count) \(records.count == 1 ? "workout" : "workouts"), and your weekly distance.",
            attachments: [
                try AnyAttachmentPayload(localFileURL: csv, attachmentType: .file),
                try AnyAttachmentPayload(localFileURL: chart, attachmentType: .image),
            ])
    }
}
