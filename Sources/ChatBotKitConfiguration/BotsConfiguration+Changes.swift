import ChatBotKit
import ChatModels

extension BotsConfiguration {
    /// What differs between two versions of a configuration, bot by bot, and what each change
    /// takes when `bots run` applies it while running (on SIGHUP, or with `--watch`).
    public struct Changes: Sendable {
        /// Bots only in the new configuration: they start.
        public var added: [BotEntry] = []
        /// Bots only in the old configuration: they stop, as on shutdown (handlers finish), and
        /// their users leave the bots' channels.
        public var removed: [BotEntry] = []
        /// Bots whose kind, user, concurrency, drain deadline, `reuse_uploads`, `catch_up`, `rate_budget` or `events` changed: they
        /// stop and start again, so they reconnect; their users leave the channels the file no
        /// longer runs them in (all of them after a user change).
        public var restarted: [BotEntry] = []
        /// Bots whose own options (those their kind reads, such as a moderation `policy`) or
        /// `sender_limit` changed: rebuilt and swapped in between two handlers, without
        /// reconnecting (a new sender limit starts with every sender's bucket full).
        public var reconfigured: [BotEntry] = []
        /// Bots given new channels: they join and watch them, without reconnecting.
        public var followed: [(bot: BotEntry, channels: [ChannelId])] = []
        /// Bots with channels taken out of their list: they leave them (they stop watching them
        /// and are no longer members, as a bot follows every channel it is a member of).
        public var left: [(bot: BotEntry, channels: [ChannelId])] = []
        /// The sections (`server`, `embedded`, `metrics`, `scale_out`, `tracing`) that changed: they take effect at the
        /// next start only.
        public var needingRestart: [String] = []

        /// Whether nothing changed at all.
        public var isEmpty: Bool {
            added.isEmpty && removed.isEmpty && restarted.isEmpty && reconfigured.isEmpty && followed.isEmpty
                && left.isEmpty && needingRestart.isEmpty
        }
    }

    /// What changed since `previous`.
    public func changes(from previous: BotsConfiguration) -> Changes {
        var changes = Changes()
        if server != previous.server { changes.needingRestart.append("server") }
        if embedded != previous.embedded { changes.needingRestart.append("embedded") }
        if metrics != previous.metrics { changes.needingRestart.append("metrics") }
        if scaleOut != previous.scaleOut { changes.needingRestart.append("scale_out") }
        if tracing != previous.tracing { changes.needingRestart.append("tracing") }
        if webhook != previous.webhook { changes.needingRestart.append("webhook") }
        let oldBots = Dictionary(uniqueKeysWithValues: previous.bots.map { ($0.name, $0) })
        let newNames = Set(bots.map(\.name))
        changes.removed = previous.bots.filter { !newNames.contains($0.name) }
        for entry in bots {
            guard let old = oldBots[entry.name] else {
                changes.added.append(entry)
                continue
            }
            if entry.kind != old.kind || entry.user != old.user || entry.concurrency != old.concurrency
                || entry.drainDeadline != old.drainDeadline || entry.reusesUploads != old.reusesUploads || entry.catchUp != old.catchUp
                || entry.rateBudget != old.rateBudget || entry.events != old.events
                || entry.outageTolerance != old.outageTolerance
            {
                changes.restarted.append(entry)
                continue
            }
            if !entry.hasSameOptions(as: old) || entry.senderLimit != old.senderLimit { changes.reconfigured.append(entry) }
            let added = entry.channels.filter { !old.channels.contains($0) }
            if !added.isEmpty { changes.followed.append((entry, added)) }
            let taken = old.channels.filter { !entry.channels.contains($0) }
            if !taken.isEmpty { changes.left.append((entry, taken)) }
        }
        return changes
    }
}

extension BotsConfiguration.BotEntry {
    /// The entry's options other than the ones every bot has: those its kind reads.
    var kindOptions: [(key: String, node: ConfigNode)] {
        let pairs = (try? node.mapping()) ?? []
        return pairs.filter { !BotsConfiguration.commonBotKeys.contains($0.key) }
    }

    /// Whether the options its kind reads are the same, wherever they are written.
    func hasSameOptions(as other: Self) -> Bool {
        let mine = kindOptions
        let theirs = other.kindOptions
        return mine.count == theirs.count && zip(mine, theirs).allSatisfy { $0.key == $1.key && $0.node.hasSameValue(as: $1.node) }
    }
}

extension ConfigNode {
    /// Whether `other` holds the same value (after `${VAR}` substitution), wherever it stands.
    func hasSameValue(as other: ConfigNode) -> Bool {
        switch (value, other.value) {
        case (.scalar(let text, let isPlain), .scalar(let otherText, let otherIsPlain)):
            return text == otherText && isPlain == otherIsPlain
        case (.sequence(let nodes), .sequence(let otherNodes)):
            return nodes.count == otherNodes.count && zip(nodes, otherNodes).allSatisfy { $0.hasSameValue(as: $1) }
        case (.mapping(let pairs), .mapping(let otherPairs)):
            return pairs.count == otherPairs.count
                && zip(pairs, otherPairs).allSatisfy { $0.key.hasSameValue(as: $1.key) && $0.value.hasSameValue(as: $1.value) }
        default:
            return false
        }
    }
}
