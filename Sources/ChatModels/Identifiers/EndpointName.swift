/// The name the service gives one of its REST endpoints: the keys of `GET /rate_limits` and the
/// first word of its error messages (`SendMessage failed with error: …`). Rate limits count per
/// endpoint name, so calls that share an endpoint (watching and querying a channel) share a quota.
public struct EndpointName: RawRepresentable, Hashable, Comparable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The name as the service writes it.
    public let rawValue: String
    /// A name as the service writes it.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A name from a string literal.
    public init(stringLiteral value: String) { self.rawValue = value }
    /// The name.
    public var description: String { rawValue }
    /// Ordered by name.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `GET /app`.
    public static let getApp: Self = "GetApp"
    /// `PATCH /app`.
    public static let updateApp: Self = "UpdateApp"
    /// `GET /rate_limits`.
    public static let getRateLimits: Self = "GetRateLimits"
    /// `POST /users`.
    public static let updateUsers: Self = "UpdateUsers"
    /// `GET /users`.
    public static let queryUsers: Self = "QueryUsers"
    /// `PATCH /users`.
    public static let updateUsersPartial: Self = "UpdateUsersPartial"
    /// `POST /users/{id}/event`.
    public static let sendUserCustomEvent: Self = "SendUserCustomEvent"
    /// `DELETE /users/{id}`.
    public static let deleteUser: Self = "DeleteUser"
    /// `POST /users/{id}/deactivate`.
    public static let deactivateUser: Self = "DeactivateUser"
    /// `POST /users/{id}/reactivate`.
    public static let reactivateUser: Self = "ReactivateUser"
    /// `POST /users/restore`.
    public static let restoreUsers: Self = "RestoreUsers"
    /// `POST /users/block`.
    public static let blockUsers: Self = "BlockUsers"
    /// `POST /users/unblock`.
    public static let unblockUsers: Self = "UnblockUsers"
    /// `GET /users/block`.
    public static let getBlockedUsers: Self = "GetBlockedUsers"
    /// `POST /users/delete`.
    public static let deleteUsers: Self = "DeleteUsers"
    /// `POST /users/deactivate`.
    public static let deactivateUsers: Self = "DeactivateUsers"
    /// `GET /tasks/{id}`.
    public static let getTask: Self = "GetTask"
    /// `POST /sync`.
    public static let sync: Self = "Sync"
    /// `POST /channels/{type}/{id}/query`: getting, creating and watching one channel.
    public static let getOrCreateChannel: Self = "GetOrCreateChannel"
    /// `POST /channels` and `GET /channels`.
    public static let queryChannels: Self = "QueryChannels"
    /// `POST /channels/{type}/{id}`: the full update, and adding or removing members.
    public static let updateChannel: Self = "UpdateChannel"
    /// `PATCH /channels/{type}/{id}`.
    public static let updateChannelPartial: Self = "UpdateChannelPartial"
    /// `DELETE /channels/{type}/{id}`.
    public static let deleteChannel: Self = "DeleteChannel"
    /// `POST /channels/delete`.
    public static let deleteChannels: Self = "DeleteChannels"
    /// `POST /channels/{type}/{id}/hide`.
    public static let hideChannel: Self = "HideChannel"
    /// `POST /channels/{type}/{id}/show`.
    public static let showChannel: Self = "ShowChannel"
    /// `POST /channels/{type}/{id}/truncate`.
    public static let truncateChannel: Self = "TruncateChannel"
    /// `POST /channels/{type}/{id}/stop-watching`.
    public static let stopWatchingChannel: Self = "StopWatchingChannel"
    /// `GET /members`.
    public static let queryMembers: Self = "QueryMembers"
    /// `PATCH /channels/{type}/{id}/member/{user_id}`.
    public static let updateMemberPartial: Self = "UpdateMemberPartial"
    /// `POST /channels/{type}/{id}/read`.
    public static let markRead: Self = "MarkRead"
    /// `POST /channels/{type}/{id}/unread`.
    public static let markUnread: Self = "MarkUnread"
    /// `POST /channels/read`.
    public static let markChannelsRead: Self = "MarkChannelsRead"
    /// `GET /unread`.
    public static let unreadCounts: Self = "UnreadCounts"
    /// `POST /unread_batch`.
    public static let unreadCountsBatch: Self = "UnreadCountsBatch"
    /// `POST /channels/{type}/{id}/event`.
    public static let sendEvent: Self = "SendEvent"
    /// `POST /channels/{type}/{id}/message`.
    public static let sendMessage: Self = "SendMessage"
    /// `GET /messages/{id}`.
    public static let getMessage: Self = "GetMessage"
    /// `GET /channels/{type}/{id}/messages`.
    public static let getManyMessages: Self = "GetManyMessages"
    /// `GET /channels/{type}/{id}/pinned_messages`.
    public static let getPinnedMessages: Self = "GetPinnedMessages"
    /// `POST /messages/{id}`.
    public static let updateMessage: Self = "UpdateMessage"
    /// `PUT /messages/{id}`.
    public static let updateMessagePartial: Self = "UpdateMessagePartial"
    /// `DELETE /messages/{id}`.
    public static let deleteMessage: Self = "DeleteMessage"
    /// `POST /messages/{id}/undelete`.
    public static let undeleteMessage: Self = "UndeleteMessage"
    /// `GET /messages/{id}/replies`.
    public static let getReplies: Self = "GetReplies"
    /// `GET /search`.
    public static let search: Self = "Search"
    /// `POST /channels/{type}/{id}/draft`.
    public static let createDraft: Self = "CreateDraft"
    /// `GET /channels/{type}/{id}/draft`.
    public static let getDraft: Self = "GetDraft"
    /// `DELETE /channels/{type}/{id}/draft`.
    public static let deleteDraft: Self = "DeleteDraft"
    /// `POST /drafts/query`.
    public static let queryDrafts: Self = "QueryDrafts"
    /// `POST /messages/{id}/reminders`.
    public static let createReminder: Self = "CreateReminder"
    /// `PATCH /messages/{id}/reminders`.
    public static let updateReminder: Self = "UpdateReminder"
    /// `DELETE /messages/{id}/reminders`.
    public static let deleteReminder: Self = "DeleteReminder"
    /// `POST /reminders/query`.
    public static let queryReminders: Self = "QueryReminders"
    /// `GET /users/live_locations`.
    public static let getUserLiveLocations: Self = "GetUserLiveLocations"
    /// `PUT /users/live_locations`.
    public static let updateLiveLocation: Self = "UpdateLiveLocation"
    /// `POST /messages/history`.
    public static let queryMessageHistory: Self = "QueryMessageHistory"
    /// `POST /threads`.
    public static let queryThreads: Self = "QueryThreads"
    /// `GET /threads/{message_id}`.
    public static let getThread: Self = "GetThread"
    /// `GET /og`.
    public static let getOG: Self = "GetOG"
    /// `POST /messages/{id}/reaction`.
    public static let sendReaction: Self = "SendReaction"
    /// `DELETE /messages/{id}/reaction/{type}`.
    public static let deleteReaction: Self = "DeleteReaction"
    /// `GET /messages/{id}/reactions`.
    public static let getReactions: Self = "GetReactions"
    /// `POST /channels/{type}/{id}/file`.
    public static let uploadFile: Self = "UploadFile"
    /// `POST /channels/{type}/{id}/image`.
    public static let uploadImage: Self = "UploadImage"
    /// `DELETE /channels/{type}/{id}/file`.
    public static let deleteFile: Self = "DeleteFile"
    /// `DELETE /channels/{type}/{id}/image`.
    public static let deleteImage: Self = "DeleteImage"
    /// `POST /moderation/flag`.
    public static let flag: Self = "Flag"
    /// `POST /moderation/unflag`.
    public static let unflag: Self = "Unflag"
    /// `POST /moderation/mute`.
    public static let muteUser: Self = "MuteUser"
    /// `POST /moderation/unmute`.
    public static let unmuteUser: Self = "UnmuteUser"
    /// `POST /moderation/mute/channel`.
    public static let muteChannel: Self = "MuteChannel"
    /// `POST /moderation/unmute/channel`.
    public static let unmuteChannel: Self = "UnmuteChannel"
    /// `GET /moderation/flags/message`.
    public static let queryMessageFlags: Self = "QueryMessageFlags"
    /// `POST /moderation/ban`.
    public static let ban: Self = "Ban"
    /// `DELETE /moderation/ban`.
    public static let unban: Self = "Unban"
    /// `GET /query_banned_users`.
    public static let queryBannedUsers: Self = "QueryBannedUsers"

    /// Every endpoint the dev server serves, in name order: what `GET /rate_limits` lists and
    /// what `bots.yaml`'s `embedded.rate_limits` may name.
    public static let known: [EndpointName] = [
        getApp, updateApp, getRateLimits, updateUsers, updateUsersPartial, sendUserCustomEvent, deleteUser, deactivateUser, reactivateUser,
        restoreUsers, deleteUsers, deactivateUsers, blockUsers, unblockUsers, getBlockedUsers, getTask, queryUsers, sync, getOrCreateChannel, queryChannels, updateChannel,
        updateChannelPartial, deleteChannel, deleteChannels, hideChannel, showChannel, truncateChannel, stopWatchingChannel, queryMembers,
        updateMemberPartial, markRead, markUnread, markChannelsRead, unreadCounts, unreadCountsBatch, sendEvent, sendMessage, getMessage,
        getManyMessages, getPinnedMessages, updateMessage, updateMessagePartial, deleteMessage, undeleteMessage, getReplies, queryMessageHistory, createDraft, getDraft, deleteDraft, queryDrafts,
        createReminder, updateReminder, deleteReminder, queryReminders, getUserLiveLocations, updateLiveLocation, queryThreads,
        getThread, search, getOG, sendReaction, deleteReaction, getReactions, uploadFile, uploadImage, deleteFile, deleteImage, flag, unflag,
        muteUser, unmuteUser, muteChannel, unmuteChannel, queryMessageFlags, ban, unban, queryBannedUsers,
    ].sorted()
}
