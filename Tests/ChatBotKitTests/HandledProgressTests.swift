import Foundation
import Testing

@testable import ChatBotKit

@Suite("HandledProgress: how far a bot has handled, with channels handled concurrently")
struct HandledProgressTests {
    let start = Date(timeIntervalSince1970: 1_790_000_000)

    func at(_ seconds: TimeInterval) -> Date { start.addingTimeInterval(seconds) }

    @Test("handled through the oldest delivery still queued or running, else the latest event; nothing before any event")
    func handledThrough() {
        var progress = HandledProgress()
        #expect(progress.checkpoint(bot: "b") == nil)
        progress.saw(eventAt: at(1))
        progress.accepted("m2", eventAt: at(2))
        progress.accepted("m3", eventAt: at(3))
        progress.saw(eventAt: at(4))
        #expect(progress.handledThrough == at(2))
        progress.finished("m3")
        #expect(progress.handledThrough == at(2), "m2, in another channel, still runs")
        progress.finished("m2")
        #expect(progress.handledThrough == at(4))
        let checkpoint = progress.checkpoint(bot: "b", now: at(10))
        #expect(checkpoint == BotCheckpoint(bot: "b", watchingSince: at(1), handledThrough: at(4), recentlyHandled: ["m3", "m2"], savedAt: at(10)))
    }

    @Test("following from a time gives a bot that saw nothing a checkpoint there; it leaves progress already made alone")
    func following() {
        var quiet = HandledProgress()
        quiet.following(since: at(1))
        #expect(quiet.hasChanges)
        #expect(quiet.checkpoint(bot: "b", now: at(5)) == BotCheckpoint(bot: "b", watchingSince: at(1), handledThrough: at(1), recentlyHandled: [], savedAt: at(5)))
        quiet.saw(eventAt: at(2))
        #expect(quiet.handledThrough == at(2), "events move it on as usual")

        var busy = HandledProgress()
        busy.accepted("m1", eventAt: at(0.5))
        busy.following(since: at(1))
        #expect(busy.handledThrough == at(0.5), "a delivery still queued holds it back")

        let checkpoint = BotCheckpoint(bot: "b", watchingSince: at(-10), handledThrough: at(-2), recentlyHandled: ["m0"], savedAt: at(-1))
        var resumed = HandledProgress(resumingFrom: checkpoint)
        resumed.following(since: at(1))
        #expect(resumed.handledThrough == at(-2), "what the checkpoint said stands until the synced events are handled")
    }

    @Test("the bot's own deliveries (scheduled runs) are listed once finished, without moving how far events were handled; a channel without events hands them off too")
    func ownDeliveries() {
        var quiet = HandledProgress()
        quiet.acceptedOwn("run-1")
        #expect(quiet.handOff() == ChannelHandOff(handledThrough: nil, recentlyHandled: []), "listed once finished")
        quiet.finished("run-1")
        #expect(quiet.handOff() == ChannelHandOff(handledThrough: nil, recentlyHandled: ["run-1"]))
        var next = HandledProgress(handOff: quiet.handOff())
        #expect(next.handOff() == ChannelHandOff(handledThrough: nil, recentlyHandled: ["run-1"]), "the next holder lists it on")

        var busy = HandledProgress()
        busy.accepted("m1", eventAt: at(1))
        busy.acceptedOwn("run-2")
        busy.finished("m1")
        #expect(busy.handledThrough == at(1), "a run under way holds nothing back")
        busy.finished("run-2")
        #expect(busy.handledThrough == at(1), "nor does it move anything on")
        #expect(busy.checkpoint(bot: "b", now: at(2))?.recentlyHandled == ["m1", "run-2"])
        busy.saw(eventAt: at(10))
        #expect(busy.checkpoint(bot: "b", now: at(11))?.recentlyHandled == ["run-2"], "not forgotten with the events around it")
        for run in 3...40 {
            busy.acceptedOwn("run-\(run)")
            busy.finished("run-\(run)")
        }
        #expect(busy.checkpoint(bot: "b", now: at(12))?.recentlyHandled == (9...40).map { "run-\($0)" }, "the last 32 only")
    }

    @Test("finishing what was never accepted changes nothing; a checkpoint is due only after a change")
    func changes() {
        var progress = HandledProgress()
        progress.accepted("m1", eventAt: at(1))
        _ = progress.checkpoint(bot: "b")
        #expect(!progress.hasChanges)
        progress.finished("unknown")
        #expect(!progress.hasChanges)
        progress.saw(eventAt: at(0.5))
        #expect(!progress.hasChanges, "an older event does not move anything")
        progress.finished("m1")
        #expect(progress.hasChanges)
    }

    @Test("deliveries older than the reordering margin before handledThrough leave the list; the list keeps the newest `capacity`")
    func pruning() {
        var progress = HandledProgress(reorderingMargin: 5, capacity: 3)
        for second in 0..<10 {
            progress.accepted("m\(second)", eventAt: at(TimeInterval(second)))
            progress.finished("m\(second)")
        }
        #expect(progress.checkpoint(bot: "b")?.recentlyHandled == ["m7", "m8", "m9"])
        var wide = HandledProgress(reorderingMargin: 5, capacity: 100)
        for second in 0..<10 {
            wide.accepted("m\(second)", eventAt: at(TimeInterval(second)))
            wide.finished("m\(second)")
        }
        #expect(wide.checkpoint(bot: "b")?.recentlyHandled == ["m4", "m5", "m6", "m7", "m8", "m9"])
    }

    @Test("a restart syncs from the margin before handledThrough, never before the bot began watching; resumed progress keeps both")
    func syncStart() {
        let fresh = BotCheckpoint(bot: "b", watchingSince: at(8), handledThrough: at(10), recentlyHandled: ["m9"])
        #expect(HandledProgress.syncStart(of: fresh, reorderingMargin: 5) == at(8))
        let old = BotCheckpoint(bot: "b", watchingSince: at(0), handledThrough: at(100), recentlyHandled: [])
        #expect(HandledProgress.syncStart(of: old, reorderingMargin: 5) == at(95))

        var resumed = HandledProgress(resumingFrom: fresh, since: at(8))
        let checkpoint = resumed.checkpoint(bot: "b")
        #expect(checkpoint?.watchingSince == at(8))
        #expect(checkpoint?.handledThrough == at(10))
        #expect(checkpoint?.recentlyHandled == ["m9"])
        // Caught up from later than the checkpoint (it was too old): nothing before that is known.
        var clipped = HandledProgress(resumingFrom: old, since: at(200))
        let given = clipped.checkpoint(bot: "b")
        #expect(given?.watchingSince == at(200))
        #expect(given?.handledThrough == at(200))
    }
}
