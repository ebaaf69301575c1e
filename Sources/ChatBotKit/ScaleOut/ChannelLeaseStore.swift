import ChatModels
import Foundation

/// Where the nodes of a scaled-out bot agree on who handles which channel: each channel's lease
/// is held by one node at a time, for a limited time, and says how far the channel was handled
/// so that the next holder goes on from there.
///
/// Times are the store's own (its clock decides when a lease has run out), so the nodes' clocks
/// need not agree. `PostgresChannelLeaseStore` (ChatBotKitPostgres) is the one ChatBotKit ships.
public protocol ChannelLeaseStore: Sendable {
    /// Says that `node` runs `bot` for the next `duration`, as the process `instance` (an id of
    /// its own), and returns every node that does, sorted. `node` is among them only if the
    /// name is this instance's: another instance announcing it before it ran out keeps it.
    func announce(node: String, bot: String, instance: String, for duration: Duration) async throws -> [String]

    /// The leases of `bot`'s channels as they are now.
    func leases(bot: String) async throws -> [ChannelLease]

    /// Takes the lease of `cid` for `node` for `duration`, if no one holds it, it is `node`'s
    /// already, or it ran out at least `expiredFor` ago; returns how far the channel was
    /// handled, or nil when another node holds it.
    func acquire(_ cid: ChannelId, bot: String, node: String, for duration: Duration, expiredFor: Duration) async throws -> ChannelHandOff?

    /// Extends `node`'s leases of these channels by `duration`, recording how far each was
    /// handled; returns those `node` still holds.
    func renew(_ progress: [ChannelId: ChannelHandOff], bot: String, node: String, for duration: Duration) async throws -> Set<ChannelId>

    /// Gives up `node`'s leases of these channels, recording how far each was handled, so that
    /// the next node takes them over at once.
    func release(_ progress: [ChannelId: ChannelHandOff], bot: String, node: String) async throws

    /// Says that `node` (as `instance`) no longer runs `bot`.
    func leave(node: String, bot: String, instance: String) async throws
}

/// One channel's lease, as the store has it.
public struct ChannelLease: Sendable, Hashable {
    /// The channel.
    public var cid: ChannelId
    /// The node holding it; nil once released.
    public var owner: String?
    /// How long ago it ran out (zero or less while it holds).
    public var expiredFor: Duration

    /// A lease of `cid` held by `owner`, which ran out `expiredFor` ago.
    public init(cid: ChannelId, owner: String?, expiredFor: Duration) {
        self.cid = cid
        self.owner = owner
        self.expiredFor = expiredFor
    }

    /// Whether a node holds it now.
    public var isHeld: Bool { owner != nil && expiredFor <= .zero }
}

/// How far a channel was handled, passed from one node to the next with its lease.
public struct ChannelHandOff: Sendable, Hashable {
    /// Every event of the channel up to this time was handled; nil when no node handled any.
    public var handledThrough: Date?
    /// The deliveries handled just before and after `handledThrough` (their keys), which the
    /// next node does not handle again.
    public var recentlyHandled: [String]

    /// A hand-off at `handledThrough`, with the deliveries handled around it.
    public init(handledThrough: Date?, recentlyHandled: [String] = []) {
        self.handledThrough = handledThrough
        self.recentlyHandled = recentlyHandled
    }
}
