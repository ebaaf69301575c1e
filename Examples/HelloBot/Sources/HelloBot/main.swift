import ChatBotKit

struct Workout: AttachmentPayload {
    static let type = AttachmentType(rawValue: "workout")
    var distance: Int
}
let bot = Bot(name: "coach")
bot.on(Workout.self) { workout, context in
    try await context.reply(text: "Nice, \(workout.distance) m!")
}
try await bot.run(channels: ["messaging:general"])
