import ChatBotKit
import ChatModels
import Foundation

/// `/goal`'s questions, one step at a time: how far each week, then which workouts count.
enum GoalSetup: Conversation {
    /// Waiting for the weekly distance.
    case distance
    /// Waiting for the workouts that count toward `meters` a week.
    case type(meters: Int)

    /// The goal in place stays as it was.
    static let cancelledText: String? = "OK, your goal stays as it was."
    /// Said to an answer after the ten minutes the bot waits.
    static let expiredText: String? = "I stopped waiting for your goal after 10 minutes; send /goal to start again."
}

extension WorkoutBot {
    /// `/goal` asks for a weekly distance and the workouts it counts, in a conversation; the
    /// week's summaries then say how far the sender is. `/goal off` drops it, `/cancel` stops
    /// the questions.
    static func addGoalConversation(to bot: Bot, store: WorkoutStore) {
        bot.command("goal") { invocation, context in
            guard let userId = context.message.user?.id else { return }
            if invocation.arguments.map({ $0.lowercased() }) == ["off"] {
                let removed = try store.removeGoal(of: userId)
                try await context.reply(text: removed ? "Goal removed." : "You have no goal to remove.")
                return
            }
            try await context.startConversation(GoalSetup.distance)
            try await context.reply(text: "How far do you want to go each week? Say 30km. (/cancel to stop)")
        }
        bot.onConversation(GoalSetup.self) { step, context in
            let answer = context.message.text.trimmingCharacters(in: .whitespacesAndNewlines)
            // A command or a posted workout is no answer: it is handled as usual meanwhile.
            guard CommandInvocation(text: answer) == nil, context.message.attachments.isEmpty, let userId = context.message.user?.id else {
                return .pass
            }
            switch step {
            case .distance:
                guard let meters = goalDistanceMeters(answer) else {
                    try await context.reply(text: "\"\(answer)\" is not a distance. How far each week? Say 30km.")
                    return .next(.distance)
                }
                try await context.reply(
                    text: "Which workouts count toward \(WorkoutReports.kilometers(meters)) km a week? Say run, ride, swim, walk… or any.")
                return .next(.type(meters: meters))
            case .type(let meters):
                guard let workouts = goalWorkouts(answer) else {
                    try await context.reply(text: "\"\(answer)\" is not a kind of workout. Say run, ride, swim, walk… or any.")
                    return .next(step)
                }
                try store.setGoal(WorkoutStore.Goal(userId: userId, weeklyMeters: meters, type: workouts.type))
                try await replySummary(of: userId, weekOf: context.message.createdAt ?? Date(), prefix: "Goal set. ", context: context, store: store)
                return .end
            }
        }
    }

    /// The meters of an answer such as `30km`, `30 km`, `30` or `12.5`: above 0 and below 100,000 km.
    public static func goalDistanceMeters(_ answer: String) -> Int? {
        var text = answer.lowercased().replacingOccurrences(of: " ", with: "")
        if text.hasSuffix("km") { text.removeLast(2) }
        guard let kilometers = Double(text), kilometers > 0, kilometers < 100_000 else { return nil }
        return Int((kilometers * 1000).rounded())
    }

    /// The workouts an answer names: one kind (`run`, lower-cased), or every kind (`any`, `all`).
    static func goalWorkouts(_ answer: String) -> GoalWorkouts? {
        let word = answer.lowercased()
        guard !word.isEmpty, word.count <= 30, word.allSatisfy(\.isLetter) else { return nil }
        return ["any", "all"].contains(word) ? .any : .only(word)
    }

    /// Which workouts count toward a goal.
    enum GoalWorkouts: Equatable {
        /// Every kind.
        case any
        /// One kind.
        case only(String)

        /// As the store keeps it: the kind, or nil for any.
        var type: String? {
            if case .only(let type) = self { type } else { nil }
        }
    }
}
