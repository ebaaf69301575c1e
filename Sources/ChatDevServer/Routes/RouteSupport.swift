import ChatLocking
import ChatModels
import Foundation
import GRDB
import Hummingbird
import NIOCore

extension DevServerState {
    /// The JSON object body of a request; an empty body is `{}`. Malformed JSON, a body that is
    /// not an object, or one over the size limit are input errors.
    func jsonBody(_ request: Request, operation: String) async throws -> JSONObject {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: configuration.maximumJSONBodySize)
        } catch {
            throw APIError.tooLarge(operation, "the JSON body is larger than \(configuration.maximumJSONBodySize) bytes")
        }
        guard buffer.readableBytes > 0 else { return [:] }
        let json: RawJSON
        do {
            json = try JSONParser().parse(Data(buffer.readableBytesView))
        } catch {
            throw APIError.input(operation, "invalid JSON body: \(error.message) at byte \(error.offset ?? 0)")
        }
        guard case .object(let object) = json else {
            throw APIError.input(operation, "the body must be a JSON object, found \(json.kindDescription)")
        }
        return object
    }

    /// The `payload` query item of the GET-with-JSON endpoints.
    func payloadQuery(_ request: Request, operation: String) throws -> JSONObject {
        guard let text = request.query("payload") else { return [:] }
        guard case .object(let object)? = try? JSONParser().parse(text) else {
            throw APIError.input(operation, "the payload query parameter must be a JSON object")
        }
        return object
    }

    /// The user an operation acts as: the token's user, or (with a server token) the user the
    /// body names in `user`, `user.id` or `user_id`.
    func actingUser(_ principal: Principal, _ body: JSONObject, operation: String) throws -> String {
        if let userId = principal.userId { return userId }
        if let id = body["user"]?["id"]?.stringValue ?? body["user_id"]?.stringValue ?? body["user"]?.stringValue, !id.isEmpty {
            // A server token cannot act as a user that may not act itself.
            if let reason = disabledUsers.withLock({ $0[id] }) { throw APIError.forbidden(operation, reason) }
            return id
        }
        throw APIError.input(operation, "either user or user_id must be provided when using server side auth")
    }

    /// The user an operation without a body acts as: the token's user, or (with a server token)
    /// the one the `user_id` query item names.
    func actingUser(_ principal: Principal, query request: Request, operation: String) throws -> String {
        try actingUser(principal, request.query("user_id").map { ["user_id": .string($0)] } ?? [:], operation: operation)
    }

    /// A `sort` of `[{"field": …, "direction": 1 or -1}, …]` (direction 1 when absent), first key
    /// first; none sorts nothing. `fields` are the ones accepted, or with `allowsCustomFields`
    /// the ones suggested beside any other (a custom field of the data).
    static func sortKeys(_ value: RawJSON?, fields: Set<String>, allowsCustomFields: Bool = false, operation: String) throws
        -> [(field: String, ascending: Bool)]
    {
        guard let value, !value.isNull else { return [] }
        guard let entries = value.arrayValue else { throw APIError.input(operation, "sort must be an array of {field, direction}") }
        let listed = fields.sorted().joined(separator: ", ")
        return try entries.map { entry in
            let field = entry["field"]?.stringValue ?? ""
            if allowsCustomFields {
                guard !field.isEmpty else { throw APIError.input(operation, "each sort entry needs a field, such as \(listed)") }
            } else {
                guard fields.contains(field) else { throw APIError.input(operation, "sort field must be one of \(listed)") }
            }
            let direction = entry["direction"]?.intValue ?? 1
            guard direction == 1 || direction == -1 else { throw APIError.input(operation, "sort direction must be 1 or -1") }
            return (field, direction == 1)
        }
    }

    /// A `limit` or `offset`: `fallback` when absent, else a whole number within `range` (a
    /// query string's through ``Request/queryValue(_:)``).
    static func pageParameter(_ value: RawJSON?, _ name: String, default fallback: Int, range: ClosedRange<Int>, operation: String) throws -> Int {
        guard let value, !value.isNull else { return fallback }
        guard let number = value.intValue, range.contains(number) else {
            throw APIError.input(
                operation, "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(JSONWriter.string(value))")
        }
        return number
    }

    /// Where a page starts: 0, or the `next` an earlier page answered (its offset, as text).
    static func pageOffset(_ next: RawJSON?, operation: String) throws -> Int {
        guard let text = next?.stringValue, !text.isEmpty else { return 0 }
        guard let offset = Int(text), offset >= 0 else { throw APIError.input(operation, "next must be the next of an earlier page") }
        return offset
    }

    /// One page of a list, answered under `key`: the items from `offset`, at most `limit`, each
    /// rendered, and the `next` of the page after it when there is one.
    static func page<Item>(_ all: [Item], under key: String, offset: Int, limit: Int, _ render: (Item) throws -> JSONObject) rethrows
        -> JSONObject
    {
        var answer: JSONObject = [key: .array(try all.dropFirst(offset).prefix(limit).map { .object(try render($0)) })]
        if all.count > offset + limit { answer["next"] = .string(String(offset + limit)) }
        return answer
    }

    /// The channel id of a `/channels/{type}/{id}` route, checking the type exists.
    func channelId(_ context: DevRequestContext, operation: String) throws -> ChannelId {
        let type = try channelType(context, operation: operation)
        let id = context.parameters.get("id") ?? ""
        guard ChannelId.isValidPart(id) else {
            throw APIError.input(operation, "channel id \"\(id)\" may only contain letters, digits, '-', '_' and '!'")
        }
        return ChannelId(type: ChannelType(rawValue: type), id: id)
    }

    /// The `{type}` of a route, checking the channel type exists.
    func channelType(_ context: DevRequestContext, operation: String) throws -> String {
        let type = context.parameters.get("type") ?? ""
        guard DevServerState.knownChannelTypes.contains(type) else {
            throw APIError.notFound(
                operation, "channel type \"\(type)\" does not exist; types: \(DevServerState.knownChannelTypes.sorted().joined(separator: ", "))")
        }
        return type
    }

    /// Fails unless `principal` may read `cid` (a server token, or a member's user token).
    static func requireAccess(_ db: Database, _ cid: ChannelId, _ principal: Principal, operation: String) throws {
        guard let userId = principal.userId else { return }
        guard try ChannelsTable.member(db, cid, userId) != nil else {
            throw APIError.forbidden(operation, "user \(userId) is not a member of channel \(cid.rawValue)")
        }
    }

    /// The membership of `userId` in `cid`; one who is not a member is an input error (4).
    static func requireMember(_ db: Database, _ cid: ChannelId, _ userId: String, operation: String) throws -> StoredMember {
        guard let member = try ChannelsTable.member(db, cid, userId) else {
            throw APIError.input(operation, "user \(userId) is not a member of channel \(cid.rawValue)")
        }
        return member
    }

    static func requireChannel(_ db: Database, _ cid: ChannelId, operation: String) throws -> StoredChannel {
        guard let channel = try ChannelsTable.fetch(db, cid) else {
            throw APIError.notFound(operation, "channel \(cid.rawValue) does not exist")
        }
        return channel
    }

    static func requireMessage(_ db: Database, _ id: String, operation: String) throws -> StoredMessage {
        guard let message = try MessagesTable.fetch(db, id) else {
            throw APIError.notFound(operation, "message with id \(id) does not exist")
        }
        return message
    }
}

extension Request {
    /// A boolean query item: `true`, `1`, `false`, `0` (Python sends words, Swift numbers).
    func queryFlag(_ name: String) -> Bool {
        guard let value = query(name) else { return false }
        return value == "true" || value == "1"
    }

    /// A query item as a JSON value: a number when it reads as a whole number, else its text,
    /// so query and JSON parameters are checked by the same code.
    func queryValue(_ name: String) -> RawJSON? {
        query(name).map { text in Int(text).map { .number(JSONNumber($0)) } ?? .string(text) }
    }
}

extension RawJSON {
    /// A boolean from JSON `true`/`false` or `1`/`0`.
    var flag: Bool { boolValue ?? (intValue.map { $0 != 0 } ?? false) }
}
