import ChatModels

/// Which ``EndpointName`` each route is, as the hosted service names them in its rate limits and
/// error messages.
enum EndpointRoutes {
    /// Keyed by `METHOD /route` as Hummingbird reports a matched route (`{type}` for a parameter).
    static let names: [String: EndpointName] = [
        "GET /app": .getApp,
        "PATCH /app": .updateApp,
        "GET /rate_limits": .getRateLimits,
        "POST /users": .updateUsers,
        "GET /users": .queryUsers,
        "PATCH /users": .updateUsersPartial,
        "POST /users/{userId}/event": .sendUserCustomEvent,
        "DELETE /users/{userId}": .deleteUser,
        "POST /users/{userId}/deactivate": .deactivateUser,
        "POST /users/{userId}/reactivate": .reactivateUser,
        "POST /users/restore": .restoreUsers,
        "POST /users/delete": .deleteUsers,
        "POST /users/deactivate": .deactivateUsers,
        "GET /tasks/{taskId}": .getTask,
        "POST /sync": .sync,
        "POST /channels/{type}/{id}/query": .getOrCreateChannel,
        "POST /channels": .queryChannels,
        "GET /channels": .queryChannels,
        "POST /channels/{type}/{id}": .updateChannel,
        "PATCH /channels/{type}/{id}": .updateChannelPartial,
        "DELETE /channels/{type}/{id}": .deleteChannel,
        "POST /channels/delete": .deleteChannels,
        "POST /channels/{type}/{id}/truncate": .truncateChannel,
        "POST /channels/{type}/{id}/stop-watching": .stopWatchingChannel,
        "GET /members": .queryMembers,
        "PATCH /channels/{type}/{id}/member/{userId}": .updateMemberPartial,
        "POST /channels/{type}/{id}/read": .markRead,
        "POST /channels/{type}/{id}/unread": .markUnread,
        "POST /channels/read": .markChannelsRead,
        "GET /unread": .unreadCounts,
        "POST /unread_batch": .unreadCountsBatch,
        "POST /channels/{type}/{id}/event": .sendEvent,
        "POST /channels/{type}/{id}/message": .sendMessage,
        "GET /messages/{messageId}": .getMessage,
        "GET /channels/{type}/{id}/messages": .getManyMessages,
        "GET /channels/{type}/{id}/pinned_messages": .getPinnedMessages,
        "POST /messages/{messageId}": .updateMessage,
        "PUT /messages/{messageId}": .updateMessagePartial,
        "DELETE /messages/{messageId}": .deleteMessage,
        "POST /messages/{messageId}/undelete": .undeleteMessage,
        "GET /messages/{messageId}/replies": .getReplies,
        "GET /search": .search,
        "GET /og": .getOG,
        "POST /messages/{messageId}/reaction": .sendReaction,
        "DELETE /messages/{messageId}/reaction/{reactionType}": .deleteReaction,
        "GET /messages/{messageId}/reactions": .getReactions,
        "POST /channels/{type}/{id}/file": .uploadFile,
        "POST /channels/{type}/{id}/image": .uploadImage,
        "DELETE /channels/{type}/{id}/file": .deleteFile,
        "DELETE /channels/{type}/{id}/image": .deleteImage,
        "POST /moderation/flag": .flag,
        "POST /moderation/unflag": .unflag,
        "POST /moderation/mute": .muteUser,
        "POST /moderation/unmute": .unmuteUser,
        "POST /moderation/mute/channel": .muteChannel,
        "POST /moderation/unmute/channel": .unmuteChannel,
        "GET /moderation/flags/message": .queryMessageFlags,
        "POST /moderation/ban": .ban,
        "DELETE /moderation/ban": .unban,
        "GET /query_banned_users": .queryBannedUsers,
    ]

    /// The endpoint a route is; nil for routes outside the API (the file host).
    static func name(method: String, route: String) -> EndpointName? {
        names["\(method) \(route)"]
    }
}
