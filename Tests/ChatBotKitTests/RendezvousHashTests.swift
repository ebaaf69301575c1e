import ChatModels
import Testing

@testable import ChatBotKit

@Suite("RendezvousHash: which node a channel belongs with")
struct RendezvousHashTests {
    static let channels = (0..<3000).map { ChannelId(type: .messaging, id: "room-\($0)") }

    @Test("the same answer in every process: scores are pinned, not seeded per process")
    func stable() {
        // FNV-1a 64 of "node-a\nmessaging:general", mixed by SplitMix64's finalizer; a change
        // here would move every channel of every deployment at the next rolling deploy.
        // (Computed independently, in Python, from the same definition.)
        #expect(RendezvousHash.score("node-a", "messaging:general") == 0xf137_18c9_be2d_645a)
        #expect(RendezvousHash.score("node-b", "messaging:general") == 0xa3a4_6cb8_fad6_2ea4)
        #expect(RendezvousHash.node(for: "messaging:general", among: []) == nil)
        #expect(RendezvousHash.node(for: "messaging:general", among: ["only"]) == "only")
        // The order the nodes are listed in does not matter.
        for cid in Self.channels.prefix(200) {
            #expect(RendezvousHash.node(for: cid, among: ["a", "b", "c"]) == RendezvousHash.node(for: cid, among: ["c", "a", "b"]))
        }
    }

    @Test("channels are shared out evenly, and a node that leaves moves only its own")
    func balancedAndMinimal() throws {
        let nodes = ["node-a", "node-b", "node-c"]
        var placed: [ChannelId: String] = [:]
        for cid in Self.channels { placed[cid] = RendezvousHash.node(for: cid, among: nodes) }
        for node in nodes {
            let share = Double(placed.values.filter { $0 == node }.count) / Double(Self.channels.count)
            #expect(share > 0.29 && share < 0.38, "\(node): \(share)")
        }
        let remaining = ["node-a", "node-c"]
        for cid in Self.channels {
            let after = try #require(RendezvousHash.node(for: cid, among: remaining))
            if placed[cid] != "node-b" { #expect(after == placed[cid], "\(cid) moved though its node stayed") }
        }
        // A node that joins takes channels only for itself.
        let grown = nodes + ["node-d"]
        for cid in Self.channels {
            let after = try #require(RendezvousHash.node(for: cid, among: grown))
            #expect(after == placed[cid] || after == "node-d")
        }
    }
}
