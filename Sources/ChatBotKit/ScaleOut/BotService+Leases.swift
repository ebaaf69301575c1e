import ChatClient
import ChatLocking
import ChatModels
import Foundation
import Logging

/// A channel whose lease the node just took, with what happened in it since its last holder
/// left off, waiting for the bot's consumer to take it in before the channel's live events.
struct PendingHandOff: Sendable {
    /// The channel.
    let cid: ChannelId
    /// Its events since its last holder's progress (`/sync`).
    let synced: [Event]
    /// The deliveries its last holder handled around that point.
    let recentlyHandled: [String]
    /// The bot's reminders in the channel that came due since then: the service sent their
    /// `notification.reminder_due` while no node handled the channel, and does not send it again.
    let dueReminders: [MessageReminder]
}

extension BotService {
    /// The channels this node handles, for a scaled-out bot (``Configuration/scaleOut``):
    /// those whose lease it holds and has caught up on. Empty for a bot on one node.
    public var leasedChannels: Set<ChannelId> { ownership.withLock(\.held) }

    /// Keeps this node's share of the leases until cancelled: a round three times per lease
    /// duration (the first comes before the bot is ready), and one at once when an event of a
    /// channel not seen before arrives.
    func keepLeases(_ scaleOut: ScaleOut) async {
        let (rounds, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        leaseRounds.withLock { $0 = continuation }
        let interval = scaleOut.leaseDuration / 3
        await withDiscardingTaskGroup { group in
            group.addTask {
                while (try? await Task.sleep(for: interval)) != nil { continuation.yield() }
                continuation.finish()
            }
            for await _ in rounds {
                do {
                    try await balanceLeases(scaleOut)
                    if leaseFailing.withLock({ isFailing in
                        defer { isFailing = false }
                        return isFailing
                    }) {
                        logger.info("Bot \(bot.name) reaches its lease store again")
                    }
                } catch where !Task.isCancelled {
                    reportLeaseFailure(error, scaleOut: scaleOut)
                } catch {
                    break
                }
            }
            group.cancelAll()
        }
    }

    /// Asks for a round of the leases now (a channel not seen before).
    func requestLeaseRound() {
        _ = leaseRounds.withLock { $0 }?.yield()
    }

    /// One round: says this node runs, renews the leases of the channels that belong with it,
    /// gives up those that belong elsewhere now (once their queued deliveries are handled), and
    /// takes those that belong here and are free (or were left to run out by another node).
    func balanceLeases(_ scaleOut: ScaleOut) async throws {
        await leaseBalancing.acquire()
        defer { leaseBalancing.release() }
        let store = scaleOut.store
        let name = bot.name
        let asked = ContinuousClock.now
        let validUntil = asked + scaleOut.leaseDuration
        let nodes = try await store.announce(node: scaleOut.node, bot: name, instance: instance, for: scaleOut.leaseDuration)
        guard nodes.contains(scaleOut.node) else { throw NodeNameTaken(node: scaleOut.node, bot: name) }
        var leases: [ChannelId: ChannelLease] = [:]
        for lease in try await store.leases(bot: name) { leases[lease.cid] = lease }
        let watched = Set(connection.watchedChannels)
        func belongsHere(_ cid: ChannelId) -> Bool { RendezvousHash.node(for: cid, among: nodes) == scaleOut.node }

        var renewals: [ChannelId: ChannelHandOff] = [:]
        var releases: [ChannelId: ChannelHandOff] = [:]
        for cid in ownership.withLock({ $0.leased }) {
            let belongs = watched.contains(cid) && belongsHere(cid)
            let isPending = mailboxes.isPending(cid)
            let (handOff, isReleased) = ownership.withLock { ownership in
                if !belongs { ownership.beginReleasing(cid) }
                // Given up once what it queued is handled (one still catching up is kept until then).
                return (ownership.handOff(cid), ownership.isReleasing(cid) && !isPending)
            }
            if isReleased { releases[cid] = handOff } else { renewals[cid] = handOff }
        }
        if !renewals.isEmpty {
            let kept = try await store.renew(renewals, bot: name, node: scaleOut.node, for: scaleOut.leaseDuration)
            for cid in renewals.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
                if kept.contains(cid) {
                    ownership.withLock { $0.renewed(cid, until: validUntil) }
                } else {
                    ownership.withLock { $0.relinquish(cid) }
                    metrics.handedOff("lost")
                    logger.warning("Bot \(name) lost the lease of \(cid) to another node; it no longer handles it", metadata: ["cid": "\(cid)"])
                }
            }
        }
        if !releases.isEmpty {
            try await store.release(releases, bot: name, node: scaleOut.node)
            for cid in releases.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
                ownership.withLock { $0.relinquish(cid) }
                metrics.handedOff("released")
                logger.info(
                    "Bot \(name) handed \(cid) over: it belongs with node \(RendezvousHash.node(for: cid, among: nodes) ?? "none") now",
                    metadata: ["cid": "\(cid)"])
            }
        }

        // What was given up this round is left for its node to take.
        let leased = Set(ownership.withLock { $0.leased }).union(releases.keys)
        for cid in watched.subtracting(leased).sorted(by: { $0.rawValue < $1.rawValue }) {
            let lease = leases[cid]
            let expiredFor: Duration
            if belongsHere(cid) {
                // Free, run out, or this node's own from before a restart.
                guard lease.map({ !$0.isHeld || $0.owner == scaleOut.node }) ?? true else { continue }
                expiredFor = .zero
            } else {
                // Its node has let it run out for a whole lease: that node is not taking it.
                guard let lease, !lease.isHeld, lease.expiredFor >= scaleOut.leaseDuration else { continue }
                expiredFor = scaleOut.leaseDuration
            }
            guard let handOff = try await store.acquire(cid, bot: name, node: scaleOut.node, for: scaleOut.leaseDuration, expiredFor: expiredFor)
            else { continue }
            await takeOver(cid, handOff: handOff, validUntil: validUntil, previousOwner: lease?.owner, scaleOut: scaleOut)
        }
        metrics.leasedChannels(ownership.withLock { $0.leased.count })
    }

    /// Catches up on a channel just taken: syncs it from where its last holder left it and
    /// passes the events to the consumer (waking it), which handles them before the live ones
    /// that waited. A sync that fails gives the lease back, for the next round to try again; a
    /// channel the server does not sync (too many events) is logged and counted by the
    /// connection, and handled from now on.
    private func takeOver(
        _ cid: ChannelId, handOff: ChannelHandOff, validUntil: ContinuousClock.Instant, previousOwner: String?, scaleOut: ScaleOut
    ) async {
        let since = ownership.withLock { $0.beginCatchingUp(cid, handOff: handOff, validUntil: validUntil) }
        var synced: [Event] = []
        var dueReminders: [MessageReminder] = []
        if let since {
            let oldest = Date().addingTimeInterval(-(configuration.catchUp?.maximumAge ?? .seconds(86_400)).timeInterval)
            do {
                synced = try await connection.syncEvents([cid], since: max(since, oldest))
                if bot.handlesReminders { dueReminders = try await remindersDue(in: cid, after: max(since, oldest)) }
            } catch {
                logger.warning("Bot \(bot.name) could not sync \(cid) to take it over; it tries again: \(error)", metadata: ["cid": "\(cid)"])
                ownership.withLock { $0.abandonCatchingUp(cid, skippedSince: handOff.handledThrough ?? since) }
                try? await scaleOut.store.release([cid: handOff], bot: bot.name, node: scaleOut.node)
                return
            }
        }
        metrics.handedOff("taken")
        logger.info(
            "Bot \(bot.name) handles \(cid) now\(previousOwner.map { ", after node \($0)" } ?? "")\(synced.isEmpty ? "" : "; \(synced.count) events to catch up on")",
            metadata: ["cid": "\(cid)"])
        handOffs.withLock {
            $0.append(PendingHandOff(cid: cid, synced: synced, recentlyHandled: handOff.recentlyHandled, dueReminders: dueReminders))
        }
        await connection.nudge()
    }

    /// Gives up every lease on stop, with how far each channel was handled, so that the other
    /// nodes take them over at once; a failure, or a bot cancelled rather than shut down,
    /// leaves them to run out.
    func releaseLeases(_ scaleOut: ScaleOut) async {
        guard !Task.isCancelled else { return }
        let progress = ownership.withLock { ownership -> [ChannelId: ChannelHandOff] in
            var progress: [ChannelId: ChannelHandOff] = [:]
            for cid in ownership.leased { progress[cid] = ownership.handOff(cid) }
            return progress
        }
        do {
            if !progress.isEmpty { try await scaleOut.store.release(progress, bot: bot.name, node: scaleOut.node) }
            try await scaleOut.store.leave(node: scaleOut.node, bot: bot.name, instance: instance)
            ownership.withLock { ownership in
                for cid in progress.keys { ownership.relinquish(cid) }
            }
            metrics.leasedChannels(0)
            if !progress.isEmpty { logger.info("Bot \(bot.name) handed its \(progress.count) channels over to the other nodes") }
        } catch {
            logger.warning(
                "Bot \(bot.name) could not give its leases up: \(error); the other nodes take its channels over when they run out (\(DurationText.format(scaleOut.leaseDuration)))"
            )
        }
    }

    /// The first round, before the bot is ready. A node name still announced by another
    /// process is waited out for a lease and a second (a node restarted after a crash finds its
    /// own last announcement there); one still taken then belongs to a node that runs.
    func balanceLeasesAtStart(_ scaleOut: ScaleOut) async throws {
        let deadline = ContinuousClock.now + scaleOut.leaseDuration + .seconds(1)
        while true {
            do {
                return try await balanceLeases(scaleOut)
            } catch let taken as NodeNameTaken where ContinuousClock.now < deadline {
                logger.info("\(taken.description); waiting for it to run out, in case it is this node's own from before a restart")
                try await Task.sleep(for: min(scaleOut.leaseDuration / 3, .seconds(1)))
            }
        }
    }

    /// Logs a round that failed, once until one works again.
    private func reportLeaseFailure(_ error: any Error, scaleOut: ScaleOut) {
        let wasFailing = leaseFailing.withLock { isFailing in
            defer { isFailing = true }
            return isFailing
        }
        guard !wasFailing else { return }
        if let taken = error as? NodeNameTaken {
            return logger.error("Bot \(bot.name): \(taken); it stops handling its channels when their leases run out")
        }
        logger.error(
            "Bot \(bot.name) cannot reach its lease store: \(error); it stops handling its channels when their leases run out (\(DurationText.format(scaleOut.leaseDuration)))"
        )
    }
}

/// Another running process announces this node's name for the bot: two processes of one name
/// would take each other's leases for their own.
struct NodeNameTaken: Error, CustomStringConvertible {
    let node: String
    let bot: String

    var description: String {
        "node name \(node) is taken by another running process of bot \(bot); give each node its own name (scale_out.node)"
    }
}
