import ChatModels
import Foundation
import GRDB
import Hummingbird

extension ChannelRoutes {
    /// The sort fields of a member query.
    static let memberSortFields: Set<String> = ["created_at", "updated_at", "user_id", "name"]

    /// `GET /members?payload={"type", "id", "filter_conditions", "sort", "limit", "offset"}`: the
    /// channel's members that match, in join order unless sorted (100 at most by default, 300
    /// at most in all).
    func queryMembers(_ request: Request) async throws -> JSONReply {
        let operation = "QueryMembers"
        let principal = try await state.authenticate(request)
        let payload = try state.payloadQuery(request, operation: operation)
        guard let type = payload["type"]?.stringValue, let id = payload["id"]?.stringValue, !type.isEmpty, !id.isEmpty else {
            throw APIError.input(operation, "type and id of the channel are required")
        }
        guard let cid = try? ChannelId(cid: "\(type):\(id)") else { throw APIError.input(operation, "\(type):\(id) is not a channel id") }
        var conditions = JSONObject()
        if let value = payload["filter_conditions"], !value.isNull {
            guard let object = value.objectValue else { throw APIError.input(operation, "filter_conditions must be an object") }
            conditions = object
        }
        let filter = try ChannelMemberFilter(conditions, operation: operation)
        let sort = try DevServerState.sortKeys(payload["sort"], fields: ChannelRoutes.memberSortFields, operation: operation)
        let limit = try DevServerState.pageParameter(payload["limit"], "limit", default: 100, range: 1...300, operation: operation)
        let offset = try DevServerState.pageParameter(payload["offset"], "offset", default: 0, range: 0...Int(Int32.max), operation: operation)
        let renderer = await state.renderer(for: request)
        let members = try await state.store.read { db -> [RawJSON] in
            _ = try DevServerState.requireChannel(db, cid, operation: operation)
            try DevServerState.requireAccess(db, cid, principal, operation: operation)
            let members = try ChannelsTable.members(db, cid)
            let users = try UsersTable.fetch(db, ids: members.map(\.userId))
            var matching = members.filter { filter.matches($0, user: users[$0.userId]) }
            for (field, ascending) in sort.reversed() {
                matching = ChannelRoutes.stableSorted(matching, by: field, ascending: ascending, users: users)
            }
            return matching.dropFirst(offset).prefix(limit).map { .object(renderer.member($0, users: users)) }
        }
        return JSONReply(["members": .array(members)])
    }

    /// Members sorted by one field, keeping the order of equal ones (so earlier sort keys win).
    static func stableSorted(_ members: [StoredMember], by field: String, ascending: Bool, users: [String: StoredUser]) -> [StoredMember] {
        func key(_ member: StoredMember) -> String {
            switch field {
            case "created_at": return RFC3339.string(from: member.createdAt)
            case "updated_at": return RFC3339.string(from: member.updatedAt)
            case "name": return users[member.userId]?.data["name"]?.stringValue ?? ""
            default: return member.userId
            }
        }
        return members.enumerated().sorted { left, right in
            let (a, b) = (key(left.element), key(right.element))
            if a != b { return ascending ? a < b : a > b }
            return left.offset < right.offset
        }.map(\.element)
    }
}
