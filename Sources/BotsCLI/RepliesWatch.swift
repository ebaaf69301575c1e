import ChatClient
import ChatModels
import Foundation

/// What `send` and `react` print after they act: the channel's new messages by others (the
/// bots' answers), as they come, for a few seconds.
enum RepliesWatch {
    /// Prints the messages of `channel` newer than `after` by anyone but `user`, for `seconds`.
    static func show(in channel: ChannelId, after: Date?, from client: ChatClient, notBy user: String, for seconds: Double) async throws {
        guard seconds > 0 else { return }
        let deadline = Date().addingTimeInterval(seconds)
        let after = after ?? .distantPast
        var shown: Set<String> = []
        while Date() < deadline {
            let state = try await client.queryChannel(channel, messageLimit: 50)
            for message in state.messages where message.user?.id != user && (message.createdAt ?? .distantPast) > after {
                guard shown.insert(message.id).inserted else { continue }
                say("\(message.user?.id ?? "?"): \(message.textAndAttachmentTypes)")
            }
            try await Task.sleep(for: .milliseconds(200))
        }
    }
}
