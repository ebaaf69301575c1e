import ChatModels
import Foundation

extension ChatChannel {
    /// Sets and unsets the channel's fields (`name`, `image`, custom fields, `frozen`).
    @discardableResult
    public func updatePartial(set: [String: RawJSON] = [:], unset: [String] = []) async throws -> Channel {
        try await client.updateChannelPartial(cid, set: set, unset: unset)
    }

    /// Freezes the channel: its users can no longer post or react (bots with a server token can).
    @discardableResult
    public func freeze() async throws -> Channel { try await client.freezeChannel(cid) }

    /// Unfreezes the channel.
    @discardableResult
    public func unfreeze() async throws -> Channel { try await client.unfreezeChannel(cid) }

    /// Empties the channel's history up to `upTo` (default: all), then posts `notice` if given.
    @discardableResult
    public func truncate(hardDelete: Bool = false, upTo: Date? = nil, notice: String? = nil) async throws -> Channel {
        try await client.truncateChannel(cid, hardDelete: hardDelete, upTo: upTo, notice: notice)
    }

    /// Deletes the channel and its messages.
    @discardableResult
    public func delete(hardDelete: Bool = false) async throws -> Channel { try await client.deleteChannel(cid, hardDelete: hardDelete) }

    /// The members that match `filter`.
    public func queryMembers(
        filter: JSONObject = [:], sort: [(field: String, direction: Int)] = [], limit: Int = 100, offset: Int = 0
    ) async throws -> [Member] {
        try await client.queryMembers(of: cid, filter: filter, sort: sort, limit: limit, offset: offset)
    }
}
