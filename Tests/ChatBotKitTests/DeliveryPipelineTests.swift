@testable import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatLocking
import ChatModels
import Foundation
import Testing

@Suite("DeliveryPipeline: each channel in order, each delivery once, a few channels at a time, drained within a deadline")
struct DeliveryPipelineTests {
    static let general: ChannelId = "messaging:general"
    static let other: ChannelId = "messaging:other"

    /// A bot that records "<channel> <text>" for each message, after `pause`.
    static func recordingBot(_ recorder: Recorder<String>, pause: Duration = .zero) -> Bot {
        let bot = Bot(name: "relay")
        bot.onMessage { context in
            if pause > .zero { try await Task.sleep(for: pause) }
            recorder.record("\(context.channel.cid.id) \(context.message.text)")
        }
        return bot
    }

    @Test("the deliveries of a channel are handled in the order they were taken, channels side by side")
    func orderPerChannel() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let pipeline = DeliveryPipeline.forTest(Self.recordingBot(recorder, pause: .milliseconds(1)), on: server)
            await withDiscardingTaskGroup { workers in
                for index in 0..<30 {
                    await pipeline.take(newMessage("g\(index)", in: Self.general), workers: &workers)
                    await pipeline.take(newMessage("o\(index)", in: Self.other), workers: &workers)
                }
                await pipeline.drain(&workers)
            }
            #expect(recorder.all.filter { $0.hasPrefix("general ") } == (0..<30).map { "general g\($0)" })
            #expect(recorder.all.filter { $0.hasPrefix("other ") } == (0..<30).map { "other o\($0)" })
            #expect(!pipeline.hasPendingWork)
        }
    }

    @Test("a delivery taken again, or remembered as handled, is not handled; the observers hear of each event taken, then of each delivery finished")
    func onceEach() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let log = DeliveryLog()
            let pipeline = DeliveryPipeline.forTest(Self.recordingBot(recorder), on: server, observers: [log])
            pipeline.remember(["m3"])
            await withDiscardingTaskGroup { workers in
                let first = newMessage("m1", in: Self.general)
                await pipeline.take(first, workers: &workers)
                // The same message again: a reconnect's `/sync`, or its `notification.message_new`.
                await pipeline.take(first, workers: &workers)
                var notification = newMessage("m1", in: Self.general)
                notification.type = .notificationMessageNew
                await pipeline.take(notification, workers: &workers)
                await pipeline.take(newMessage("m2", in: Self.general), workers: &workers)
                await pipeline.take(newMessage("m3", in: Self.general), workers: &workers)
                // The bot's own message is nothing to handle.
                await pipeline.take(newMessage("m4", in: Self.general, by: "relay"), workers: &workers)
                await pipeline.drain(&workers)
            }
            #expect(recorder.all == ["general m1", "general m2"])
            #expect(log.all.filter { $0.hasPrefix("took") } == ["took m1", "took -", "took -", "took m2", "took -", "took -"])
            for key in ["m1", "m2"] {
                let took = try #require(log.all.firstIndex(of: "took \(key)"))
                let finished = try #require(log.all.firstIndex(of: "finished \(key)"))
                #expect(took < finished)
            }
            #expect(log.all.filter { $0.hasPrefix("finished") }.count == 2)
        }
    }

    @Test("no more channels are handled at once than allowed; the others wait their turn")
    func concurrencyLimit() async throws {
        try await TestChatServer.withServer { server in
            let gauge = ConcurrencyGauge()
            let recorder = Recorder<String>()
            let bot = Bot(name: "relay")
            bot.onMessage { context in
                try await gauge.measure {
                    // The first one waits for a second to run beside it (or gives up after 5 s).
                    let deadline = ContinuousClock.now + .seconds(5)
                    while gauge.peak < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
                    try await Task.sleep(for: .milliseconds(5))
                }
                recorder.record(context.channel.cid.id)
            }
            let pipeline = DeliveryPipeline.forTest(bot, on: server, maximumConcurrentChannels: 2)
            let channels = (1...6).map { ChannelId(type: .messaging, id: "room-\($0)") }
            await withDiscardingTaskGroup { workers in
                for cid in channels { await pipeline.take(newMessage("hello-\(cid.id)", in: cid), workers: &workers) }
                await pipeline.drain(&workers)
            }
            #expect(Set(recorder.all) == Set(channels.map(\.id)))
            #expect(gauge.peak == 2)
        }
    }

    @Test("at the drain deadline a handler still running is cancelled, and its delivery does not count as handled")
    func drainDeadline() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let log = DeliveryLog()
            let bot = Bot(name: "relay")
            bot.onMessage { context in
                guard context.message.text == "stuck" else { return recorder.record("done") }
                recorder.record("started")
                do {
                    try await Task.sleep(for: .seconds(60))
                    recorder.record("slept")
                } catch {
                    recorder.record("cancelled")
                }
            }
            let pipeline = DeliveryPipeline.forTest(bot, on: server, drainDeadline: .milliseconds(200), observers: [log])
            await withDiscardingTaskGroup { workers in
                await pipeline.take(newMessage("stuck", in: Self.general), workers: &workers)
                await pipeline.take(newMessage("quick", in: Self.other), workers: &workers)
                try? await recorder.wait { $0.contains("started") && $0.contains("done") }
                await pipeline.drain(&workers)
            }
            #expect(recorder.all.contains("cancelled"))
            #expect(!recorder.all.contains("slept"))
            #expect(log.all.contains("finished quick"))
            #expect(!log.all.contains("finished stuck"), "cut off: the next start handles it again")
            #expect(!pipeline.hasPendingWork)
        }
    }
}
