@_spi(JSONEngine) import ChatJSON
import Foundation

extension Event {
    /// Every field of an event, held once in a shared box (``FieldBox``). The rarer nested
    /// models are boxed, which keeps this under 300 bytes instead of 1.3 KB; the acting user,
    /// on nearly every event, is not (a box of its own was one more allocation per event).
    struct Fields: Sendable, Hashable {
        var type: EventType
        var createdAt: Date?
        var cid: ChannelId?
        var message: Message?
        var user: User?
        var reaction: IndirectBox<Reaction>?
        var member: IndirectBox<Member>?
        var channel: IndirectBox<Channel>?
        var connectionId: String?
        var me: IndirectBox<User>?
        var error: IndirectBox<APIErrorPayload>?
        var hardDelete: Bool?
        var parentId: String?
        var rawData: Data
        var custom = LazyMembers()
    }
}
