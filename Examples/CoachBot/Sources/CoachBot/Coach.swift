import ChatBotKit
import ChatBotKitConfiguration

/// A workout, as the coach reads it: its distance in meters.
public struct Workout: AttachmentPayload {
    /// `workout`.
    public static let type = AttachmentType(rawValue: "workout")
    /// Meters.
    public var distance: Int

    /// A workout.
    public init(distance: Int) {
        self.distance = distance
    }
}

/// The coach: answers every workout with its distance and a cheer. bots.yaml names it
/// `kind: coach`; `cheer` is its own option.
public enum Coach: BotKind {
    /// `kind: coach`.
    public static let name = "coach"
    /// What `run` prints for its user to try.
    public static let samples = [BotKindSample(#"--attachment '{"type":"workout","distance":5000}'"#)]

    /// The bot of one bots.yaml entry.
    public static func makeBot(_ entry: BotsConfiguration.BotEntry, environment: BotKindEnvironment) throws -> Bot {
        try entry.node.allowOnly(BotsConfiguration.commonBotKeys + ["cheer"])
        return make(name: entry.name, user: User(id: entry.user), cheer: try cheer(of: entry))
    }

    /// The cheer a bots.yaml entry gives it (`Nice` when it gives none).
    public static func cheer(of entry: BotsConfiguration.BotEntry) throws -> String {
        try entry.node["cheer"]?.string() ?? "Nice"
    }

    /// The bot, with its handlers.
    public static func make(name: String, user: User, cheer: String) -> Bot {
        let bot = Bot(name: name, user: user)
        bot.on(Workout.self) { workout, context in
            try await context.reply(text: "\(cheer), \(workout.distance) m!")
        }
        return bot
    }
}
