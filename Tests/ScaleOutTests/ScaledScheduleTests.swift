import ChatBotKit
import ChatBotKitPostgres
import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing

@Suite("Scale-out: a schedule runs once per channel, on the node that holds it")
struct ScaledScheduleTests {
    @Test("two nodes: every run of every channel is made once, by the channel's holder, and handed on with the channel")
    func oncePerChannel() async throws {
        try await ScaleOutTests.withCluster { store, server, _, _ in
            let runs = Recorder<(node: String, cid: ChannelId, at: Date)>()
            func crier(node: String) -> Bot {
                let bot = Bot(name: "relay", user: User(id: "relay-bot"))
                bot.onSchedule(.every(.seconds(1)), name: "tick") { run in
                    runs.record((node, run.channel.cid, run.scheduledAt))
                }
                return bot
            }
            let nodeA = try await server.startBot(
                crier(node: "node-a"), channels: ScaleOutTests.channels, configuration: ScaleOutTests.configuration(store, node: "node-a"))
            let nodeB = try await server.startBot(
                crier(node: "node-b"), channels: ScaleOutTests.channels, configuration: ScaleOutTests.configuration(store, node: "node-b"))
            try await eventually("the channels are shared out") {
                let (a, b) = (nodeA.service.leasedChannels, nodeB.service.leasedChannels)
                return a.isDisjoint(with: b) && a.union(b) == Set(ScaleOutTests.channels) && !a.isEmpty && !b.isEmpty
            }
            let settled = Date()
            let (heldByA, heldByB) = (nodeA.service.leasedChannels, nodeB.service.leasedChannels)
            try await Task.sleep(for: .milliseconds(3_600))
            // Runs due well before either node stops, while both held what they held above: a
            // full lease (three renewal rounds, each writing the hand-off) before the stop, so that
            // a starved machine whose stop runs past the drain deadline (and leaves its leases to
            // run out rather than release them) has still handed those runs on.
            let stopping = Date().addingTimeInterval(-1.5)
            try await nodeB.stop()
            try await nodeA.stop()
            let after = runs.all.filter { $0.at > settled && $0.at < stopping }
            let times = Set(after.map(\.at))
            #expect(times.count >= 2, "runs at \(times.sorted())")
            for time in times {
                let atTime = after.filter { $0.at == time }
                #expect(atTime.count == ScaleOutTests.channels.count, "one run per channel at \(time): \(atTime.map { "\($0.node) \($0.cid)" })")
                #expect(Set(atTime.map(\.cid)) == Set(ScaleOutTests.channels))
                for run in atTime {
                    #expect((run.node == "node-a" ? heldByA : heldByB).contains(run.cid), "\(run.cid) ran on its holder")
                }
            }
            // Each channel was handed on with the last run made there well before the stop, which
            // its next holder (here a probe) does not make again. (A run made while its node stops
            // may be cut off by the drain deadline on a starved machine; the next holder makes it
            // again, as for any handler cut off.)
            for cid in ScaleOutTests.channels {
                let lastRun = try #require(runs.all.filter { $0.cid == cid && $0.at < stopping }.map(\.at).max())
                let handOff = try await store.acquire(cid, bot: "relay", node: "probe", for: .seconds(5), expiredFor: .zero)
                #expect(handOff?.recentlyHandled.contains("\(cid.rawValue)\nschedule tick \(RFC3339.string(from: lastRun))") == true, "\(cid): \(String(describing: handOff))")
            }
        }
    }
}
