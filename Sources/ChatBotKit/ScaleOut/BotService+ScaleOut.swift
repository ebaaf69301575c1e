import ChatModels
import Foundation

extension BotService {
    /// Running one bot on several nodes (processes or machines), each handling a share of its
    /// channels: every node connects as the bot's user and receives every event, and handles
    /// only the channels whose lease it holds in `store`.
    ///
    /// Channels are shared out by rendezvous hashing over the nodes that are running, so a node
    /// that joins takes its share from the others, and one that stops hands its share over. A
    /// channel changes hands only between deliveries: its old holder finishes what it queued,
    /// records how far it handled, and releases it; the new holder syncs the channel from
    /// there (`/sync`), so messages stay in order and none is lost or handled twice. A node that
    /// crashes holds its leases until they run out (`leaseDuration`); the others then take its
    /// channels over from the last progress it recorded, and what it handled after that is
    /// handled again (at least once). A node that cannot reach the store stops handling when
    /// its leases run out, rather than risk handling what another node handles.
    public struct ScaleOut: Sendable {
        /// Where the leases are kept, shared by every node.
        public var store: any ChannelLeaseStore
        /// This node's name, unique among the nodes (the host name and process id by default).
        public var node: String
        /// How long a lease lasts without renewal: how long a crashed node's channels wait. Leases
        /// are renewed three times per duration.
        public var leaseDuration: Duration

        /// Leases in `store`, held by `node` for `leaseDuration` at a time.
        public init(store: any ChannelLeaseStore, node: String = ScaleOut.defaultNode, leaseDuration: Duration = .seconds(15)) {
            self.store = store
            self.node = node
            self.leaseDuration = leaseDuration
        }

        /// The host name and the process id.
        public static var defaultNode: String {
            "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)"
        }
    }

    /// The channels this node handles, for a scaled-out bot (``Configuration/scaleOut``):
    /// those whose lease it holds and has caught up on. Empty for a bot on one node.
    public var leasedChannels: Set<ChannelId> { leaseKeeper?.leasedChannels ?? [] }
}
