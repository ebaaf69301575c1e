import ChatModels
import Foundation
import Logging

extension ChatClient {
    /// Gets or creates a channel (`POST /channels/{type}/{id}/query`); with `connectionId` the
    /// connection starts watching it. New channels are created by `createdBy` (default: the
    /// acting user) with `members`.
    @discardableResult
    public func queryChannel(
        _ cid: ChannelId, members: [String] = [], data: [String: RawJSON] = [:], createdBy: String? = nil, watch connectionId: String? = nil,
        messageLimit: Int = 25
    ) async throws -> ChannelState {
        var channelData = JSONObject(data)
        if let creator = try createdBy ?? actingUser(nil, operation: "QueryChannel") { channelData["created_by_id"] = .string(creator) }
        if !members.isEmpty { channelData["members"] = .array(members.map(RawJSON.string)) }
        var body: JSONObject = ["data": .object(channelData), "state": true, "messages": ["limit": .number(JSONNumber(messageLimit))]]
        var query: [(String, String)] = []
        if let connectionId {
            body["watch"] = true
            body["presence"] = false
            query.append(("connection_id", connectionId))
        }
        let response = try await perform(
            .post(Endpoint.channelPath(cid) + "/query", body, query: query, idempotent: true, operation: "QueryChannel"))
        return try ChannelState(json: response, operation: "QueryChannel")
    }

    /// Makes `userId` a member of `cid`, creating the channel (by that user) if it does not exist
    /// yet: a query that creates it with the user as member, then an add for a channel that
    /// already existed without them.
    public func join(_ cid: ChannelId, as userId: String) async throws {
        try await queryChannel(cid, members: [userId], createdBy: userId, messageLimit: 0)
        try await addMembers([userId], to: cid)
    }

    /// Channels matching a filter (`POST /channels`), such as `["members": ["$in": ["bot"]]]`.
    /// `messageLimit` is how many of each channel's latest messages come with it.
    public func queryChannels(
        filter: JSONObject, sort: [(field: String, direction: Int)] = [("last_message_at", -1)], limit: Int = 10, offset: Int = 0,
        messageLimit: Int = 25, watch connectionId: String? = nil
    ) async throws -> [ChannelState] {
        var body: JSONObject = [
            "filter_conditions": .object(filter), "limit": .number(JSONNumber(limit)), "offset": .number(JSONNumber(offset)),
            "state": true, "watch": .bool(connectionId != nil), "presence": false,
            "sort": .array(sort.map { ["field": .string($0.field), "direction": .number(JSONNumber($0.direction))] }),
        ]
        body["message_limit"] = .number(JSONNumber(messageLimit))
        let query = connectionId.map { [("connection_id", $0)] } ?? []
        let response = try await perform(.post("/channels", body, query: query, idempotent: true, operation: "QueryChannels"))
        return try (response["channels"]?.arrayValue ?? []).map { try ChannelState(json: $0.objectValue ?? [:], operation: "QueryChannels") }
    }

    /// Which of `cids` exist and can be read, without creating any (``queryChannel(_:members:data:createdBy:watch:messageLimit:)``
    /// would create the missing ones): a deleted channel is not among them, nor, for a user
    /// token, one the user was removed from.
    public func existingChannels(_ cids: [ChannelId]) async throws -> Set<ChannelId> {
        var existing: Set<ChannelId> = []
        // 30 is the most channels one query answers.
        for start in stride(from: 0, to: cids.count, by: 30) {
            let chunk = cids[start..<min(cids.count, start + 30)]
            let found = try await queryChannels(
                filter: ["cid": ["$in": .array(chunk.map { .string($0.rawValue) })]], limit: chunk.count, messageLimit: 0)
            existing.formUnion(found.map(\.channel.cid))
        }
        return existing
    }

    /// Every channel `userId` is a member of (`members: {$in: [userId]}`), oldest first, 30 per
    /// request.
    public func memberChannels(of userId: String) async throws -> [ChannelId] {
        try await memberChannelPages(of: userId).channels
    }

    /// ``memberChannels(of:)``, watching each page on `connectionId` as it is read, and the
    /// calls it took; `onBatch` gets the channels listed, `batchSize` or more at a time, as
    /// they are (the last batch may be smaller).
    package func memberChannelPages(
        of userId: String, watch connectionId: String? = nil, batchSize: Int = .max,
        onBatch: ([ChannelId]) async throws -> Void = { _ in }
    ) async throws -> (channels: [ChannelId], calls: Int) {
        var found: [ChannelId] = []
        var seen: Set<ChannelId> = []
        var batch: [ChannelId] = []
        let pageSize = Self.channelPageSize
        var offset = 0
        var calls = 0
        while true {
            let page = try await queryChannels(
                filter: ["members": ["$in": [.string(userId)]]], sort: [("created_at", 1)], limit: pageSize, offset: offset,
                messageLimit: 0, watch: connectionId)
            calls += 1
            // A channel that moves between pages while they are read is listed once.
            for cid in page.map(\.channel.cid) where seen.insert(cid).inserted {
                found.append(cid)
                batch.append(cid)
            }
            let isLast = page.count < pageSize
            if batch.count >= batchSize || (isLast && !batch.isEmpty) {
                try await onBatch(batch)
                batch = []
            }
            if isLast { return (found, calls) }
            offset += pageSize
        }
    }

    /// Stops sending `cid`'s events to the WebSocket connection `connectionId`
    /// (`POST .../stop-watching`); the user's `notification.*` events for it still come.
    public func stopWatching(_ cid: ChannelId, connectionId: String) async throws {
        _ = try await perform(
            .post(
                Endpoint.channelPath(cid) + "/stop-watching", [:], query: [("connection_id", connectionId)], idempotent: true,
                operation: "StopWatchingChannel"))
    }

    /// Adds members to a channel.
    public func addMembers(_ userIds: [String], to cid: ChannelId) async throws {
        _ = try await perform(
            .post(Endpoint.channelPath(cid), ["add_members": .array(userIds.map(RawJSON.string))], idempotent: true, operation: "AddMembers"))
    }

    /// Removes members from a channel.
    public func removeMembers(_ userIds: [String], from cid: ChannelId) async throws {
        _ = try await perform(
            .post(Endpoint.channelPath(cid), ["remove_members": .array(userIds.map(RawJSON.string))], idempotent: true, operation: "RemoveMembers"))
    }

    /// Marks a channel read (`POST .../read`).
    public func markRead(_ cid: ChannelId, messageId: String? = nil, as userId: String? = nil) async throws {
        var body = JSONObject()
        if let user = try actingUser(userId, operation: "MarkRead") { body["user"] = ["id": .string(user)] }
        if let messageId { body["message_id"] = .string(messageId) }
        _ = try await perform(.post(Endpoint.channelPath(cid) + "/read", body, idempotent: true, operation: "MarkRead"))
    }

    /// Sends a channel event: `typing.start`, `typing.stop`, or a custom type.
    public func sendEvent(_ type: String, to cid: ChannelId, parentId: String? = nil, extraData: [String: RawJSON] = [:], as userId: String? = nil)
        async throws
    {
        var event = JSONObject(extraData)
        event["type"] = .string(type)
        if let parentId { event["parent_id"] = .string(parentId) }
        if let user = try actingUser(userId, operation: "SendEvent") { event["user"] = ["id": .string(user)] }
        _ = try await perform(.post(Endpoint.channelPath(cid) + "/event", ["event": .object(event)], operation: "SendEvent"))
    }

    /// Events of `cids` after `since` (`POST /sync`, 255 channels at a time), oldest first.
    public func sync(_ cids: [ChannelId], since lastSyncAt: String) async throws -> [Event] {
        var events: [Event] = []
        for start in stride(from: 0, to: cids.count, by: 255) {
            let chunk = cids[start..<min(cids.count, start + 255)]
            let body: JSONObject = [
                "channel_cids": .array(chunk.map { .string($0.rawValue) }), "last_sync_at": .string(lastSyncAt),
                "with_inaccessible_cids": true,
            ]
            let response = try await perform(.post("/sync", body, idempotent: true, operation: "Sync"))
            for json in response["events"]?.arrayValue ?? [] {
                do {
                    events.append(try Event(json: json))
                } catch {
                    logger.warning("A synced event could not be read and is skipped: \(error)")
                }
            }
        }
        return events
    }
}
