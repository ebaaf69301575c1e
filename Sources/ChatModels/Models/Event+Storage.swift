import Foundation

extension Event {
    /// Every field of an event, held once in a shared ``Storage``. Nested models are boxed,
    /// which keeps this about 150 bytes instead of 1.3 KB.
    struct Fields: Sendable {
        var type: EventType
        var createdAt: Date?
        var cid: ChannelId?
        var message: Message?
        var user: IndirectBox<User>?
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

    /// The fields behind one reference (see ``Message/Storage``): events travel through async
    /// streams, mailboxes and handlers, and each hop now moves a pointer. Immutable: a setter
    /// replaces the storage.
    final class Storage: Sendable {
        let fields: Fields
        init(_ fields: consuming Fields) { self.fields = fields }
    }

    /// Changes a field, copy-on-write.
    mutating func update(_ change: (inout Fields) -> Void) {
        var fields = storage.fields
        change(&fields)
        storage = Storage(fields)
    }
}
