import ChatModels
import Foundation

/// Joining and watching many channels with few calls: Query Channels with a `cid` `$in` filter
/// answers (and, with `watch: true`, watches) up to ``ChatClient/channelPageSize`` channels at
/// once; only the channels it does not return are created, and the user is added only to the
/// channels it is not a member of, one call each (the service has no batch call for those).
extension ChatClient {
    /// The most channels one Query Channels answers: the service's largest `limit`.
    public static let channelPageSize = 30

    /// Makes `userId` a member of each of `cids`, a page of ``channelPageSize`` per Query
    /// Channels call, and with `connectionId` watches them on that connection in the same calls.
    /// A channel the query does not return is got or created (with the user as a member); the
    /// user is added to an existing channel only when it is not a member yet. A channel the
    /// service refuses (a 4xx, such as a 403 for a channel the user may not join) is reported in
    /// ``ChannelPagesReport/failures`` and the others go on; anything else (the service is down)
    /// throws. Duplicates in `cids` are joined once.
    public func joinChannels(_ cids: [ChannelId], as userId: String, watch connectionId: String? = nil) async throws -> ChannelPagesReport {
        try await pagedChannels(cids, joining: userId, creatingAs: userId, watch: connectionId)
    }

    /// Watches `cids` on the connection `connectionId`, a page of ``channelPageSize`` per call,
    /// creating none: the channels the service does not return (deleted, or for a user token no
    /// longer readable) are listed in ``ChannelPagesReport/missing``.
    public func watchChannels(_ cids: [ChannelId], connectionId: String) async throws -> ChannelPagesReport {
        try await pagedChannels(cids, joining: nil, creatingAs: nil, watch: connectionId)
    }

    /// Watches `cids` on `connectionId` in pages, getting or creating (by `creator`, with it as a
    /// member) each one the pages do not return, as watching one channel at a time does.
    package func watchOrCreateChannels(_ cids: [ChannelId], creator: String, connectionId: String) async throws -> ChannelPagesReport {
        try await pagedChannels(cids, joining: nil, creatingAs: creator, watch: connectionId)
    }

    private func pagedChannels(
        _ cids: [ChannelId], joining member: String?, creatingAs creator: String?, watch connectionId: String?
    ) async throws -> ChannelPagesReport {
        var report = ChannelPagesReport()
        var seen: Set<ChannelId> = []
        let unique = cids.filter { seen.insert($0).inserted }
        for start in stride(from: 0, to: unique.count, by: Self.channelPageSize) {
            let page = Array(unique[start..<min(unique.count, start + Self.channelPageSize)])
            let found = try await channelPage(page, viewer: member, watch: connectionId)
            report.calls += 1
            for cid in page {
                do {
                    try await settle(cid, found: found[cid], member: member, creator: creator, watch: connectionId, into: &report)
                } catch let error as ChatClientError where error.isRefusal {
                    report.failures.append(ChannelFailure(cid: cid, message: error.message, httpStatus: error.httpStatus))
                }
            }
        }
        return report
    }

    /// One channel of a page: ready as found, or created, or joined, or missing.
    private func settle(
        _ cid: ChannelId, found: ChannelState?, member: String?, creator: String?, watch connectionId: String?, into report: inout ChannelPagesReport
    ) async throws {
        var state = found
        if state == nil {
            guard let creator else {
                report.missing.append(cid)
                return
            }
            report.calls += 1
            state = try await queryChannel(cid, members: [creator], createdBy: creator, watch: connectionId, messageLimit: 0)
            report.created.append(cid)
        }
        if let member, let state, !state.includes(member) {
            report.calls += 1
            try await addMembers([member], to: cid)
            report.joined.append(cid)
        }
        report.ready.append(cid)
    }

    /// The channels of `page` the service returns, watched on `connectionId` if given; `viewer`
    /// (the user a server-side query is for) makes each state say whether it is a member.
    private func channelPage(_ page: [ChannelId], viewer: String?, watch connectionId: String?) async throws -> [ChannelId: ChannelState] {
        var body: JSONObject = [
            "filter_conditions": ["cid": ["$in": .array(page.map { .string($0.rawValue) })]],
            "limit": .number(JSONNumber(page.count)), "state": true, "watch": .bool(connectionId != nil), "presence": false,
            "message_limit": .number(JSONNumber(0)),
        ]
        if let viewer, case .apiSecret = configuration.credentials { body["user_id"] = .string(viewer) }
        let query = connectionId.map { [("connection_id", $0)] } ?? []
        let response = try await perform(.post("/channels", body, query: query, idempotent: true, operation: "QueryChannels"))
        var states: [ChannelId: ChannelState] = [:]
        for json in response["channels"]?.arrayValue ?? [] {
            let state = try ChannelState(json: json.objectValue ?? [:], operation: "QueryChannels")
            states[state.channel.cid] = state
        }
        return states
    }
}

/// What joining or watching channels in pages did (``ChatClient/joinChannels(_:as:watch:)``,
/// ``ChatClient/watchChannels(_:connectionId:)``).
public struct ChannelPagesReport: Sendable {
    /// The channels joined (and watched, when a connection was given), in the order asked.
    public var ready: [ChannelId] = []
    /// Of those, the ones the query did not return, got or created one call each.
    public var created: [ChannelId] = []
    /// Of those, the ones the user was added to as a member, one call each.
    public var joined: [ChannelId] = []
    /// The channels not found and not created (``ChatClient/watchChannels(_:connectionId:)``).
    public var missing: [ChannelId] = []
    /// The channels the service refused, each with why.
    public var failures: [ChannelFailure] = []
    /// The HTTP calls it took.
    public var calls = 0

    /// An empty report.
    public init() {}
}

/// A channel the service would not let the user join or watch, and why.
public struct ChannelFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The channel.
    public let cid: ChannelId
    /// What the service said.
    public let message: String
    /// The HTTP status of the refusal (403: the user may not join it).
    public let httpStatus: Int?

    /// A refusal of `cid`.
    public init(cid: ChannelId, message: String, httpStatus: Int?) {
        self.cid = cid
        self.message = message
        self.httpStatus = httpStatus
    }

    /// "messaging:x: <what the service said> (HTTP 403)".
    public var description: String { "\(cid): \(message)\(httpStatus.map { " (HTTP \($0))" } ?? "")" }
}

extension ChatClientError {
    /// The service refused this one call for a reason of its own (4xx other than 429): what
    /// other calls do is not affected.
    var isRefusal: Bool {
        guard code == .api, let httpStatus else { return false }
        return (400...499).contains(httpStatus) && httpStatus != 429
    }
}

extension ChannelState {
    /// Whether `userId` is a member, by the viewer's membership or the member list.
    func includes(_ userId: String) -> Bool {
        membership?.userId == userId || members.contains { $0.userId == userId }
    }
}
