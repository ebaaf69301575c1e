@testable import ChatBotKit
import ChatBotKitTesting
import ChatModels
import Foundation
import Logging
import Testing

@Suite("Checkpointer: where a restarted bot goes on from, saved as it goes")
struct CheckpointerTests {
    static let general: ChannelId = "messaging:general"
    static let start = Date(timeIntervalSince1970: 1_790_000_000)

    /// A checkpointer keeping its file in a folder of its own, removed afterwards.
    static func withCheckpointer(
        maximumAge: Duration = .seconds(86_400), saveInterval: Duration = .seconds(1), _ body: (Checkpointer, URL) async throws -> Void
    ) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("checkpointer-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("keeper.json")
        let catchUp = BotService.CatchUp(checkpointFile: file, maximumAge: maximumAge, saveInterval: saveInterval)
        try await body(Checkpointer(catchUp, bot: "keeper", logger: Logger(label: "chatbotkit.test.checkpointer")), file)
    }

    static func saved(_ file: URL) throws -> BotCheckpoint? { try BotCheckpoint.load(from: file) }

    /// Takes in a new message at `date` and returns the delivery it became.
    static func take(_ checkpointer: Checkpointer, _ id: String, at date: Date) -> Delivery {
        let event = newMessage(id, in: general, at: date)
        let delivery = Delivery(.newMessage, event.message!)
        checkpointer.took(event, as: delivery)
        return delivery
    }

    @Test("without a checkpoint the bot starts from now, and saves one once it follows its channels")
    func firstStart() async throws {
        try await Self.withCheckpointer { checkpointer, file in
            #expect(checkpointer.resume() == nil)
            checkpointer.save()
            #expect(try Self.saved(file) == nil, "nothing seen yet: nothing to catch up from")
            checkpointer.following(since: Self.start)
            checkpointer.save()
            let saved = try #require(try Self.saved(file))
            #expect(saved.bot == "keeper")
            #expect(saved.handledThrough == Self.start)
            #expect(saved.recentlyHandled.isEmpty)
        }
    }

    @Test("it is saved when something changed, when the last save is a minute old, and always at the end")
    func saveCadence() async throws {
        try await Self.withCheckpointer { checkpointer, file in
            let now = ContinuousClock.now
            checkpointer.following(since: Self.start)
            checkpointer.save(now: now)
            #expect(FileManager.default.fileExists(atPath: file.path))

            try FileManager.default.removeItem(at: file)
            checkpointer.save(now: now + .seconds(1))
            #expect(!FileManager.default.fileExists(atPath: file.path), "nothing changed, and the last save is recent")
            let delivery = Self.take(checkpointer, "m1", at: Self.start.addingTimeInterval(1))
            checkpointer.finished(delivery, in: Self.general)
            checkpointer.save(now: now + .seconds(2))
            #expect(try Self.saved(file)?.recentlyHandled == ["m1"], "a change is saved")

            try FileManager.default.removeItem(at: file)
            checkpointer.save(now: now + .seconds(30))
            #expect(!FileManager.default.fileExists(atPath: file.path))
            checkpointer.save(now: now + .seconds(63))
            #expect(FileManager.default.fileExists(atPath: file.path), "a minute after the last save: saved, to say the bot was running")

            try FileManager.default.removeItem(at: file)
            checkpointer.save(always: true, now: now + .seconds(64))
            #expect(FileManager.default.fileExists(atPath: file.path))
        }
    }

    @Test("a delivery counts once finished: the oldest still running holds the checkpoint back")
    func pendingHoldsBack() async throws {
        try await Self.withCheckpointer { checkpointer, file in
            let first = Self.take(checkpointer, "m1", at: Self.start)
            let second = Self.take(checkpointer, "m2", at: Self.start.addingTimeInterval(1))
            checkpointer.finished(second, in: Self.general)
            checkpointer.save(always: true)
            var saved = try #require(try Self.saved(file))
            #expect(saved.handledThrough == Self.start)
            #expect(saved.recentlyHandled == ["m2"])
            checkpointer.finished(first, in: Self.general)
            checkpointer.save(always: true)
            saved = try #require(try Self.saved(file))
            #expect(saved.handledThrough == Self.start.addingTimeInterval(1))
            #expect(Set(saved.recentlyHandled) == ["m1", "m2"])
        }
    }

    @Test("a restart goes on from the checkpoint: a little before where it was handled through, with what it lists as handled")
    func resumes() async throws {
        try await Self.withCheckpointer { checkpointer, file in
            let now = Date()
            let handledThrough = now.addingTimeInterval(-600)
            let savedAt = now.addingTimeInterval(-300)
            try BotCheckpoint(
                bot: "keeper", watchingSince: now.addingTimeInterval(-3600), handledThrough: handledThrough, recentlyHandled: ["m1"], savedAt: savedAt
            ).save(to: file)
            let resumption = try #require(checkpointer.resume(now: now))
            #expect(abs(resumption.since.timeIntervalSince(handledThrough.addingTimeInterval(-HandledProgress.defaultReorderingMargin))) < 0.001)
            #expect(abs(resumption.lastRunning.timeIntervalSince(savedAt)) < 0.001)
            #expect(resumption.recentlyHandled == ["m1"])
            checkpointer.save(always: true)
            let saved = try #require(try Self.saved(file))
            #expect(saved.recentlyHandled == ["m1"], "what was handled before the restart stays listed")
            #expect(abs(saved.handledThrough.timeIntervalSince(handledThrough)) < 0.001)
        }
    }

    @Test("a checkpoint older than the maximum age catches up on that last stretch only")
    func tooOld() async throws {
        try await Self.withCheckpointer(maximumAge: .seconds(3600)) { checkpointer, file in
            let now = Date()
            let longAgo = now.addingTimeInterval(-3 * 86_400)
            try BotCheckpoint(bot: "keeper", handledThrough: longAgo, recentlyHandled: [], savedAt: longAgo).save(to: file)
            let resumption = try #require(checkpointer.resume(now: now))
            #expect(abs(resumption.since.timeIntervalSince(now.addingTimeInterval(-3600))) < 0.001)
            #expect(abs(resumption.lastRunning.timeIntervalSince(now.addingTimeInterval(-3600))) < 0.001)
        }
    }

    @Test("a checkpoint that cannot be read is set aside, and the bot starts from now with a fresh one")
    func unreadable() async throws {
        try await Self.withCheckpointer { checkpointer, file in
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("not a checkpoint".utf8).write(to: file)
            #expect(checkpointer.resume() == nil)
            let aside = file.appendingPathExtension("unreadable")
            #expect(try String(contentsOf: aside, encoding: .utf8) == "not a checkpoint", "kept to look at")
            #expect(!FileManager.default.fileExists(atPath: file.path))
            checkpointer.following(since: Self.start)
            checkpointer.save()
            #expect(try Self.saved(file)?.handledThrough == Self.start)
        }
    }

    @Test("while it runs, what changes is saved every saveInterval")
    func savesWhileRunning() async throws {
        try await Self.withCheckpointer(saveInterval: .milliseconds(20)) { checkpointer, file in
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { await checkpointer.run() }
                checkpointer.following(since: Self.start)
                try await eventually("the checkpoint is saved") { try Self.saved(file) != nil }
                let delivery = Self.take(checkpointer, "m1", at: Self.start.addingTimeInterval(5))
                checkpointer.finished(delivery, in: Self.general)
                try await eventually("the handled message is saved") { try Self.saved(file)?.recentlyHandled == ["m1"] }
                group.cancelAll()
            }
        }
    }
}
