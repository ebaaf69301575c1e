import ChatModels
import Foundation
import GRDB

/// The `sort` of a channel query, `[{"field": "created_at", "direction": 1}, ...]`: the built-in
/// fields or a custom one from the channel's data. A channel without the field comes after those
/// with it, in either direction; ties keep the default order (latest message first).
struct ChannelSort {
    /// The fields every channel has.
    static let builtInFields: Set<String> = ["last_message_at", "last_updated", "created_at", "updated_at", "member_count"]

    /// The sort keys, first one first.
    let keys: [(field: String, ascending: Bool)]

    /// Reads and checks a `sort` value; none sorts nothing.
    init(_ value: RawJSON?, operation: String) throws {
        keys = try DevServerState.sortKeys(value, fields: Self.builtInFields, allowsCustomFields: true, operation: operation)
    }

    /// This order as SQL on the channels' columns (`c`), when every key is one; nil when a key
    /// needs more than a column (member counts, custom fields). Empty for no keys. A channel
    /// without the field comes last, as in ``sorted(_:_:)``.
    var sqlOrder: String? {
        var terms: [String] = []
        for key in keys {
            let direction = key.ascending ? "ASC" : "DESC"
            switch key.field {
            case "created_at", "updated_at": terms.append("c.\(key.field) \(direction)")
            case "last_message_at": terms.append("(c.last_message_at IS NULL), c.last_message_at \(direction)")
            default: return nil
            }
        }
        return terms.joined(separator: ", ")
    }

    /// `channels` in this order.
    func sorted(_ channels: [StoredChannel], _ db: Database) throws -> [StoredChannel] {
        guard !keys.isEmpty else { return channels }
        var memberCounts: [ChannelId: Int] = [:]
        if keys.contains(where: { $0.field == "member_count" }) {
            for channel in channels { memberCounts[channel.cid] = try ChannelsTable.memberCount(db, channel.cid) }
        }
        let rows = channels.enumerated().map { index, channel in
            (index: index, channel: channel, values: keys.map { Self.value(of: $0.field, in: channel, memberCounts) })
        }
        return rows.sorted { left, right in
            for (position, key) in keys.enumerated() {
                switch (left.values[position], right.values[position]) {
                case (nil, nil): continue
                case (nil, _): return false
                case (_, nil): return true
                case (let a?, let b?):
                    if a == b { continue }
                    return key.ascending ? a < b : b < a
                }
            }
            return left.index < right.index
        }.map(\.channel)
    }

    /// A comparable value: numbers (dates in seconds too) before text.
    enum Value: Comparable {
        case number(Double)
        case text(String)
    }

    private static func value(of field: String, in channel: StoredChannel, _ memberCounts: [ChannelId: Int]) -> Value? {
        switch field {
        case "created_at": return .number(channel.createdAt.timeIntervalSince1970)
        case "updated_at": return .number(channel.updatedAt.timeIntervalSince1970)
        case "last_message_at": return channel.lastMessageAt.map { .number($0.timeIntervalSince1970) }
        case "last_updated": return .number(max(channel.lastMessageAt ?? channel.updatedAt, channel.updatedAt).timeIntervalSince1970)
        case "member_count": return memberCounts[channel.cid].map { .number(Double($0)) }
        default:
            switch channel.data[field] {
            case .number(let number)?: return number.double.map(Value.number)
            case .string(let text)?: return .text(text)
            case .bool(let flag)?: return .number(flag ? 1 : 0)
            default: return nil
            }
        }
    }
}
