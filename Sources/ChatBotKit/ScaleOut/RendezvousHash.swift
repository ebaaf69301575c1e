import ChatModels

/// Which node a channel belongs with: the one with the highest score for the pair (rendezvous
/// hashing). Every node computes the same answer from the same list of nodes, and when a node
/// joins or leaves only the channels it wins or held move.
///
/// The score is FNV-1a over the node and the channel, finished with SplitMix64's mixer: stable
/// across processes and machines, which Swift's seeded `Hasher` is not.
enum RendezvousHash {
    /// The node `cid` belongs with among `nodes`; nil when there are none.
    static func node(for cid: ChannelId, among nodes: [String]) -> String? {
        nodes.max { lhs, rhs in
            let (left, right) = (score(lhs, cid), score(rhs, cid))
            return left == right ? lhs > rhs : left < right
        }
    }

    static func score(_ node: String, _ cid: ChannelId) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in node.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0100_0000_01b3 }
        hash = (hash ^ 0x0a) &* 0x0100_0000_01b3
        for byte in cid.rawValue.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0100_0000_01b3 }
        hash = (hash ^ (hash >> 30)) &* 0xbf58_476d_1ce4_e5b9
        hash = (hash ^ (hash >> 27)) &* 0x94d0_49bb_1331_11eb
        return hash ^ (hash >> 31)
    }
}
