import ChatModels
import Foundation
import Synchronization

extension Archive {
    /// Forgets the files posted in message `messageId`: their manifest entries go, and so does
    /// each stored file no remaining entry points at. Returns the entries removed (none when
    /// the message had no files here).
    ///
    /// The manifest is replaced in one step before any file is deleted, so an interrupted
    /// removal leaves at worst a stored file nothing lists, never an entry without its file.
    @discardableResult
    public func remove(messageId: String) throws -> [Entry] {
        try remove { $0.messageId == messageId }
    }

    /// Forgets the files of the messages of `cid` posted at or before `date` (a truncated or
    /// deleted channel), only `userId`'s when given (a user's messages deleted at once).
    /// Entries without `postedAt` go by when they were archived.
    @discardableResult
    public func remove(cid: ChannelId, userId: String? = nil, postedUpTo date: Date) throws -> [Entry] {
        try remove { entry in
            guard entry.cid == cid.rawValue, userId.map({ $0 == entry.userId }) ?? true,
                let posted = RFC3339.date(from: entry.postedAt ?? entry.archivedAt)
            else { return false }
            return posted <= date
        }
    }

    /// Forgets the files of message `messageId` whose links (without signature) are among
    /// `links`: the files an edit took out of the message. Entries without a link are kept.
    @discardableResult
    public func remove(messageId: String, links: Set<String>) throws -> [Entry] {
        try remove { entry in entry.messageId == messageId && entry.link.map(links.contains) == true }
    }

    /// Forgets the entries `isRemoved` picks, and each stored file no remaining entry points at.
    private func remove(where isRemoved: (Entry) -> Bool) throws -> [Entry] {
        try lock.withLock { _ in
            let all = try entries()
            let removed = all.filter(isRemoved)
            guard !removed.isEmpty else { return [] }
            var kept = all.filter { !isRemoved($0) }
            // The first remaining post of a content is now the one that stored it.
            var stored = Set<String>()
            for index in kept.indices { kept[index].duplicate = !stored.insert(kept[index].sha256).inserted }
            try Data(try kept.flatMap { try $0.manifestLine() }).write(to: manifestURL, options: .atomic)
            let stillListed = Set(kept.map(\.path))
            for path in Set(removed.map(\.path)) where !stillListed.contains(path) {
                try? FileManager.default.removeItem(at: folder.appendingPathComponent(path))
            }
            return removed
        }
    }
}
