import ChatModels
import Foundation

/// A user's mute of another user or of a channel.
public struct Mute: Sendable, Hashable {
    /// Who muted.
    public var userId: String
    /// The muted user's id, or the muted channel's cid.
    public var target: String
    /// Since when.
    public var createdAt: Date?
    /// Until when (nil: until unmuted).
    public var expires: Date?

    init(json: JSONObject, target: String) {
        userId = json["user"]?["id"]?.stringValue ?? ""
        self.target = target
        createdAt = json["created_at"]?.stringValue.flatMap { RFC3339.date(from: $0) }
        expires = json["expires"]?.stringValue.flatMap { RFC3339.date(from: $0) }
    }
}

extension ChatClient {
    /// Mutes `targetId` for `userId` (the configured user when nil), for good or `for` a while
    /// (whole minutes, at least one); muting again renews the mute (`POST /moderation/mute`).
    @discardableResult
    public func muteUser(_ targetId: String, for duration: Duration? = nil, as userId: String? = nil) async throws -> Mute {
        var body: JSONObject = ["target_id": .string(targetId)]
        if let duration { body["timeout"] = .number(JSONNumber(try Self.wholeUnits(duration, of: .seconds(60), "minutes", operation: "MuteUser"))) }
        if let user = try actingUser(userId, operation: "MuteUser") { body["user_id"] = .string(user) }
        let response = try await perform(.post("/moderation/mute", body, idempotent: true, operation: "MuteUser"))
        return Mute(json: response["mute"]?.objectValue ?? [:], target: targetId)
    }

    /// Ends the mute of `targetId` by `userId` (`POST /moderation/unmute`).
    public func unmuteUser(_ targetId: String, as userId: String? = nil) async throws {
        var body: JSONObject = ["target_id": .string(targetId)]
        if let user = try actingUser(userId, operation: "UnmuteUser") { body["user_id"] = .string(user) }
        _ = try await perform(.post("/moderation/unmute", body, idempotent: true, operation: "UnmuteUser"))
    }

    /// Mutes channel `cid` for `userId`, a member, for good or `for` a while
    /// (`POST /moderation/mute/channel`).
    @discardableResult
    public func muteChannel(_ cid: ChannelId, for duration: Duration? = nil, as userId: String? = nil) async throws -> Mute {
        var body: JSONObject = ["channel_cid": .string(cid.rawValue)]
        if let duration { body["expiration"] = .number(JSONNumber(try Self.wholeUnits(duration, of: .milliseconds(1), "milliseconds", operation: "MuteChannel"))) }
        if let user = try actingUser(userId, operation: "MuteChannel") { body["user_id"] = .string(user) }
        let response = try await perform(.post("/moderation/mute/channel", body, idempotent: true, operation: "MuteChannel"))
        return Mute(json: response["channel_mute"]?.objectValue ?? [:], target: cid.rawValue)
    }

    /// Ends the mute of channel `cid` by `userId` (`POST /moderation/unmute/channel`).
    public func unmuteChannel(_ cid: ChannelId, as userId: String? = nil) async throws {
        var body: JSONObject = ["channel_cid": .string(cid.rawValue)]
        if let user = try actingUser(userId, operation: "UnmuteChannel") { body["user_id"] = .string(user) }
        _ = try await perform(.post("/moderation/unmute/channel", body, idempotent: true, operation: "UnmuteChannel"))
    }

    /// `duration` in whole `unit`s, refused before sending when it is not one.
    static func wholeUnits(_ duration: Duration, of unit: Duration, _ unitName: String, operation: String) throws -> Int {
        let amount = duration / unit
        guard amount >= 1, amount == amount.rounded() else {
            throw ChatClientError(
                code: .invalidRequest, message: "\(operation) takes a duration of whole \(unitName), at least one; \(duration) is not")
        }
        return Int(amount)
    }
}
