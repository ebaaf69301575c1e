import ChatClient
import ChatModels

extension DoctorCommand {
    /// What a bot's start will do with its channels, from what the doctor found: how many it
    /// watches, joins and creates, in about how many calls (Query Channels pages of
    /// ``ChatClient/channelPageSize`` for its member channels and for the others, one call per
    /// channel to create or to join), and the channels listed more than once.
    static func describeStart(channels: [ChannelId], existing: Set<ChannelId>, memberOf: [ChannelId]) -> String {
        let page = ChatClient.channelPageSize
        var times: [ChannelId: Int] = [:]
        var unique: [ChannelId] = []
        for cid in channels {
            times[cid, default: 0] += 1
            if times[cid] == 1 { unique.append(cid) }
        }
        let members = Set(memberOf)
        let others = unique.filter { !members.contains($0) }
        let toCreate = others.filter { !existing.contains($0) }.count
        let toJoin = others.count - toCreate
        let pages = memberOf.count / page + 1 + (others.count + page - 1) / page
        let watched = members.union(unique).count
        let calls = pages + toCreate + toJoin
        var text =
            "a start watches \(watched) channel\(watched == 1 ? "" : "s") in about \(calls) call\(calls == 1 ? "" : "s") "
            + "(\(pages) Query Channels page\(pages == 1 ? "" : "s"), \(toCreate) to create, \(toJoin) to join)"
        let repeated = unique.filter { times[$0, default: 0] > 1 }
        if !repeated.isEmpty {
            text += "; listed more than once, watched once: " + repeated.map { "\($0.rawValue) (\(times[$0, default: 0])×)" }.joined(separator: ", ")
        }
        return text
    }

    /// `cids` by name, the first ten of a longer list and how many more.
    static func list(_ cids: [ChannelId]) -> String {
        let shown = cids.prefix(10).map(\.rawValue).joined(separator: ", ")
        return cids.count > 10 ? "\(shown) and \(cids.count - 10) more" : shown
    }
}
