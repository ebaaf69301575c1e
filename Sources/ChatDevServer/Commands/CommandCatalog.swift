import ChatLocking
import ChatModels
import Foundation
import GRDB

/// The app's custom commands and which commands each channel type offers, kept in memory for
/// the renderer and the send path and stored in the settings table (`commands`,
/// `channel_types`), so they survive a restart as the app settings do.
final class CommandCatalog: Sendable {
    struct Snapshot: Sendable {
        /// Custom commands by name.
        var custom: [String: CommandDefinition] = [:]
        /// The command names each channel type offers (`all`: every command); a type not listed
        /// offers none.
        var channelTypes: [String: [String]] = [:]

        /// The commands a channel of `type` offers, in the order configured.
        func commands(ofChannelType type: String) -> [CommandDefinition] {
            let names = channelTypes[type] ?? []
            if names.contains("all") { return CommandDefinition.builtIns + custom.values.sorted { $0.name < $1.name } }
            return names.compactMap { name in custom[name] ?? CommandDefinition.builtIns.first { $0.name == name } }
        }
    }

    private let state: Locked<Snapshot>

    init(_ db: Database) throws {
        var snapshot = Snapshot()
        for entry in try SettingsTable.fetch(db, "commands")?.arrayValue ?? [] {
            if let command = CommandDefinition(json: entry) { snapshot.custom[command.name] = command }
        }
        if case .object(let types)? = try SettingsTable.fetch(db, "channel_types") {
            for (type, names) in types { snapshot.channelTypes[type] = names.arrayValue?.compactMap(\.stringValue) ?? [] }
        }
        state = Locked(snapshot)
    }

    /// What the catalog holds now.
    var snapshot: Snapshot { state.withLock { $0 } }

    /// The custom command a message text invokes in a channel of `channelType`, with its
    /// arguments: nil unless the text starts with `/name` and the type offers custom command `name`.
    func invocation(of text: String?, inChannelType channelType: String) -> (command: CommandDefinition, args: String)? {
        guard let text, text.hasPrefix("/") else { return nil }
        let body = text.dropFirst()
        let name = String(body.prefix { !$0.isWhitespace })
        guard !name.isEmpty, !CommandDefinition.isBuiltIn(name) else { return nil }
        let snapshot = self.snapshot
        guard let command = snapshot.custom[name], snapshot.commands(ofChannelType: channelType).contains(where: { $0.name == name }) else {
            return nil
        }
        return (command, body.dropFirst(name.count).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Changes the catalog with `change` and stores the result in `db` (the caller's write).
    func update<Result>(_ db: Database, _ change: (inout Snapshot) throws -> Result) throws -> Result {
        var copy = snapshot
        let result = try change(&copy)
        try SettingsTable.store(db, "commands", .array(copy.custom.values.sorted { $0.name < $1.name }.map { .object($0.json) }))
        try SettingsTable.store(
            db, "channel_types", .object(JSONObject(copy.channelTypes.sorted { $0.key < $1.key }.map { ($0.key, .array($0.value.map(RawJSON.string))) })))
        state.withLock { $0 = copy }
        return result
    }
}
