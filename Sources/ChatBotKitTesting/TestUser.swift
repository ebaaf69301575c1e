import ChatClient
import ChatModels
import Foundation

/// A person in a test: posts messages and files to a channel and waits for the bot's replies.
///
/// ```swift
/// let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
/// let sent = try await ann.send(text: "hi")
/// let replies = try await ann.replies(to: sent, from: "workout-bot")
/// ```
public struct TestUser: Sendable {
    /// The user id.
    public let id: String
    /// The channel the user talks in.
    public let channel: ChannelId
    /// The user's client (acting as the user).
    public let client: ChatClient

    /// Creates the user and makes it a member of `channel` (creating the channel if needed).
    public static func join(_ server: TestChatServer, id: String, name: String? = nil, channel: ChannelId) async throws -> TestUser {
        let client = server.client(as: id)
        try await client.upsertUsers([User(id: id, name: name ?? id.capitalized)])
        try await client.join(channel, as: id)
        return TestUser(id: id, channel: channel, client: client)
    }

    /// Posts a message with text and attachments (local files are uploaded first).
    @discardableResult
    public func send(text: String = "", attachments: [AnyAttachmentPayload] = [], id: String = UUID().uuidString.lowercased()) async throws
        -> Message
    {
        try await client.channel(channel).sendMessage(text: text, attachments: attachments, id: id)
    }

    /// Posts a local file as an attachment of `type` (uploaded like any client would).
    @discardableResult
    public func sendFile(_ file: URL, as type: AttachmentType = .file, text: String = "") async throws -> Message {
        try await send(text: text, attachments: [try AnyAttachmentPayload(localFileURL: file, attachmentType: type)])
    }

    /// Posts a custom payload.
    @discardableResult
    public func send<P: AttachmentPayload>(_ payload: P, text: String = "") async throws -> Message {
        try await send(text: text, attachments: [AnyAttachmentPayload(payload: payload)])
    }

    /// Waits until `count` messages by `botUserId` newer than `message` are in the channel, and
    /// returns them oldest first; throws `WaitTimedOut` after `timeout`.
    public func replies(to message: Message, from botUserId: String, count: Int = 1, timeout: Duration = .seconds(10)) async throws
        -> [Message]
    {
        let after = message.createdAt ?? .distantPast
        var found: [Message] = []
        // Each look is a query to the server, so a little less often than eventually's default.
        try await eventually(
            "\(botUserId) posted \(count) replies to \(message.id) (so far \(found.count))", timeout: timeout, polling: .milliseconds(30)
        ) {
            let state = try await client.queryChannel(channel, messageLimit: 200)
            found = state.messages.filter { $0.user?.id == botUserId && ($0.createdAt ?? .distantPast) > after }
            return found.count >= count
        }
        return found
    }

    /// The message as the server has it now (nil once hard-deleted).
    public func current(_ message: Message) async throws -> Message? {
        do {
            return try await client.getMessage(message.id)
        } catch let error as ChatClientError where error.httpStatus == 404 {
            return nil
        }
    }
}
