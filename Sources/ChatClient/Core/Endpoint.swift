import ChatModels
import Foundation

/// One REST call: method, path, query, JSON body, and whether repeating it is safe.
struct Endpoint: Sendable {
    var method: String
    var path: String
    var query: [(String, String)] = []
    var body: JSONObject?
    /// Safe to repeat after a 5xx or a broken connection (GETs, and sends with a client id).
    var isIdempotent: Bool
    /// Used in error messages.
    var operation: String

    static func get(_ path: String, query: [(String, String)] = [], operation: String) -> Endpoint {
        Endpoint(method: "GET", path: path, query: query, body: nil, isIdempotent: true, operation: operation)
    }

    /// A GET whose parameters travel as one JSON object in the `payload` query item, as the
    /// service's query endpoints (users, search, flags, bans) take them.
    static func get(_ path: String, payload: JSONObject, operation: String) -> Endpoint {
        get(path, query: [("payload", JSONWriter.string(.object(payload)))], operation: operation)
    }

    static func post(_ path: String, _ body: JSONObject, query: [(String, String)] = [], idempotent: Bool = false, operation: String) -> Endpoint {
        Endpoint(method: "POST", path: path, query: query, body: body, isIdempotent: idempotent, operation: operation)
    }

    static func put(_ path: String, _ body: JSONObject, query: [(String, String)] = [], operation: String) -> Endpoint {
        Endpoint(method: "PUT", path: path, query: query, body: body, isIdempotent: true, operation: operation)
    }

    static func patch(_ path: String, _ body: JSONObject, operation: String) -> Endpoint {
        Endpoint(method: "PATCH", path: path, body: body, isIdempotent: true, operation: operation)
    }

    static func delete(_ path: String, query: [(String, String)] = [], operation: String) -> Endpoint {
        Endpoint(method: "DELETE", path: path, query: query, body: nil, isIdempotent: true, operation: operation)
    }

    /// The service's name for the endpoint, which its rate limits count by: the operation's,
    /// except where several operations share one endpoint.
    var name: EndpointName {
        Endpoint.sharedEndpoints[operation] ?? EndpointName(rawValue: operation)
    }

    private static let sharedEndpoints: [String: EndpointName] = [
        "QueryChannel": .getOrCreateChannel, "WatchChannel": .getOrCreateChannel, "AddMembers": .updateChannel,
        "RemoveMembers": .updateChannel, "BanUser": .ban, "UnbanUser": .unban,
    ]

    /// `type/id` of a channel as a path.
    static func channelPath(_ cid: ChannelId) -> String {
        "/channels/\(escape(cid.type.rawValue))/\(escape(cid.id))"
    }

    /// Percent-escapes one path segment.
    static func escape(_ segment: String) -> String {
        segment.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~!@"))) ?? segment
    }
}
