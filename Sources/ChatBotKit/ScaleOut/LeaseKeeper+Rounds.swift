import ChatClient
import ChatLocking
import ChatModels
import Foundation
import Logging

extension LeaseKeeper {
    /// The first round, before the bot is ready. A node name still announced by another
    /// process is waited out for a lease and a second (a node restarted after a crash finds its
    /// own last announcement there); one still taken then belongs to a node that runs, and the
    /// bot cannot start, nor can it when the store cannot be reached.
    func start(_ pipeline: DeliveryPipeline) async throws(BotError) {
        let deadline = ContinuousClock.now + scaleOut.leaseDuration + .seconds(1)
        do {
            while true {
                do {
                    return try await balance(pipeline)
                } catch let taken as NodeNameTaken where ContinuousClock.now < deadline {
                    logger.info("\(taken.description); waiting for it to run out, in case it is this node's own from before a restart")
                    try await Task.sleep(for: min(scaleOut.leaseDuration / 3, .seconds(1)))
                }
            }
        } catch let taken as NodeNameTaken {
            throw BotError(code: .startFailed, message: "bot \(bot.name) cannot start: \(taken)", underlying: taken)
        } catch {
            throw BotError(
                code: .startFailed, message: "bot \(bot.name) cannot reach its lease store (node \(scaleOut.node)): \(error)", underlying: error)
        }
    }

    /// Keeps this node's share of the leases until cancelled: a round three times per lease
    /// duration (the first came before the bot was ready), and one at once when an event of a
    /// channel not seen before arrives.
    func run(_ pipeline: DeliveryPipeline) async {
        let (requests, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        rounds.withLock { $0 = continuation }
        let interval = scaleOut.leaseDuration / 3
        await withDiscardingTaskGroup { group in
            group.addTask {
                while (try? await Task.sleep(for: interval)) != nil { continuation.yield() }
                continuation.finish()
            }
            for await _ in requests {
                do {
                    try await balance(pipeline)
                    if isFailing.withLock({ isFailing in
                        defer { isFailing = false }
                        return isFailing
                    }) {
                        logger.info("Bot \(bot.name) reaches its lease store again")
                    }
                } catch where !Task.isCancelled {
                    reportFailure(error)
                } catch {
                    break
                }
            }
            group.cancelAll()
        }
    }

    /// Asks for a round of the leases now (a channel not seen before).
    func requestRound() {
        _ = rounds.withLock { $0 }?.yield()
    }

    /// One round: says this node runs, renews the leases of the channels that belong with it,
    /// gives up those that belong elsewhere now (once their deliveries queued in `pipeline` are
    /// handled), and takes those that belong here and are free (or were left to run out by
    /// another node).
    func balance(_ pipeline: DeliveryPipeline) async throws {
        await balancing.acquire()
        defer { balancing.release() }
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
            let isPending = pipeline.isPending(cid)
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
            await takeOver(cid, handOff: handOff, validUntil: validUntil, previousOwner: lease?.owner)
        }
        metrics.leasedChannels(ownership.withLock { $0.leased.count })
    }

    /// Catches up on a channel just taken: syncs it from where its last holder left it and
    /// passes the events to the consumer (waking it), which handles them before the live ones
    /// that waited. A sync that fails gives the lease back, for the next round to try again; a
    /// channel the server does not sync (too many events) is logged and counted by the
    /// connection, and handled from now on.
    private func takeOver(_ cid: ChannelId, handOff: ChannelHandOff, validUntil: ContinuousClock.Instant, previousOwner: String?) async {
        let since = ownership.withLock { $0.beginCatchingUp(cid, handOff: handOff, validUntil: validUntil) }
        var synced: [Event] = []
        var dueReminders: [MessageReminder] = []
        if let since {
            let oldest = Date().addingTimeInterval(-maximumAge.timeInterval)
            do {
                synced = try await connection.syncEvents([cid], since: max(since, oldest))
                if bot.handlesReminders {
                    dueReminders = try await connection.client.remindersDue(to: bot.user.id, in: cid, after: max(since, oldest))
                }
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
    func release() async {
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

    /// Logs a round that failed, once until one works again.
    private func reportFailure(_ error: any Error) {
        let wasFailing = isFailing.withLock { isFailing in
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
