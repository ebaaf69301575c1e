import ChatLocking
import ChatModels
import Foundation
import Logging

extension EventConnection {
    /// With `watchesMemberChannels`, on each (re)connection: watches every channel the user is a
    /// member of now, including those it was added to while disconnected, and stops watching
    /// those it was removed from meanwhile (their removal happened while nobody listened). A
    /// channel deleted meanwhile is left to the reconnection, which announces its deletion.
    /// Each page of them is watched on `connectionId` as it is listed, and `onBatch` gets them
    /// ``readyBatch`` at a time; returns them, and the calls it took.
    func followMemberChannels(
        watch connectionId: String, onBatch: ([ChannelId]) async throws -> Void = { _ in }
    ) async throws -> (channels: Set<ChannelId>, calls: Int) {
        let (current, listingCalls) = try await client.memberChannelPages(
            of: user.id, watch: connectionId, batchSize: Self.readyBatch, onBatch: onBatch)
        var calls = listingCalls
        let gone = shared.withLock { $0.memberChannels.subtracting(current) }
        var removedFrom: Set<ChannelId> = []
        if !gone.isEmpty {
            removedFrom = gone.intersection(try await client.existingChannels(Array(gone)))
            calls += (gone.count + ChatClient.channelPageSize - 1) / ChatClient.channelPageSize
        }
        forget(removedFrom)
        let added = shared.withLock { shared -> [ChannelId] in
            let known = Set(shared.watched)
            let added = current.filter { !known.contains($0) }
            shared.watched.append(contentsOf: added)
            shared.memberChannels = Set(current)
            return added
        }
        if !added.isEmpty {
            logger.debug("Watching the channels \(user.id) is a member of: \(added.map(\.rawValue).joined(separator: ", "))")
        }
        if !removedFrom.isEmpty {
            logger.info(
                "\(user.id) was removed from \(removedFrom.map(\.rawValue).sorted().joined(separator: ", ")) while disconnected; no longer watched")
        }
        return (Set(current), calls)
    }

    /// With `watchesMemberChannels`, while connected: a channel the user is added to is watched
    /// (edits, deletions and truncations reach watchers only), and one it is removed from stops
    /// being watched on the server too, where server credentials could go on reading it.
    func followMembership(_ event: Event) async {
        guard let cid = event.cid else { return }
        do {
            if event.isAddition(of: user.id) {
                shared.withLock { _ = $0.memberChannels.insert(cid) }
                try await watch(cid)
            } else if event.isRemoval(of: user.id) {
                shared.withLock { _ = $0.memberChannels.remove(cid) }
                try await unwatch(cid)
            }
        } catch {
            logger.warning("Could not follow \(user.id)'s membership of \(cid): \(error)", metadata: ["cid": "\(cid)"])
        }
    }
}
