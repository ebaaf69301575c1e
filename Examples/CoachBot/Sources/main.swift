import BotsCLI
import ChatBotKit

struct Workout: AttachmentPayload {
    static let type = AttachmentType(rawValue: "workout")
    var distance: Int
}

/// The README's coach as a kind of bot that bots.yaml can name, with an option of its own.
enum Coach: BotKind {
    static let name = "coach"
    static let samples = [BotKindSample(#"--attachment '{"type":"workout","distance":5000}'"#)]

    static func makeBot(_ entry: BotsConfiguration.BotEntry, environment: BotKindEnvironment) throws -> Bot {
        try entry.node.allowOnly(BotsConfiguration.commonBotKeys + ["cheer"])
        let cheer = try entry.node["cheer"]?.string() ?? "Nice"
        let bot = Bot(name: entry.name, user: User(id: entry.user))
        bot.on(Workout.self) { workout, context in
            try await context.reply(text: "\(cheer), \(workout.distance) m!")
        }
        return bot
    }
}

await BotsCLI.main(kinds: [Coach.self])
