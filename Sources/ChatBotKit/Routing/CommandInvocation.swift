/// A slash command in a message: `/workouts week` is command `workouts` with arguments `["week"]`.
public struct CommandInvocation: Sendable, Hashable {
    /// The command name, without the slash.
    public let name: String
    /// The words after the command.
    public let arguments: [String]
    /// Everything after the command, as typed.
    public let argumentText: String

    /// Reads a command from a message text; nil when the text does not start with `/`.
    public init?(text: String) {
        // Most messages are not commands: answer that from the first bytes, without Foundation.
        guard let first = text.utf8.first(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }), first == UInt8(ascii: "/")
        else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix("/"), trimmed.count > 1 else { return nil }
        let body = trimmed.dropFirst()
        let name = body.prefix { !$0.isWhitespace }
        guard !name.isEmpty else { return nil }
        self.name = String(name).lowercased()
        argumentText = body.dropFirst(name.count).trimmingCharacters(in: .whitespaces)
        arguments = argumentText.split(whereSeparator: \.isWhitespace).map(String.init)
    }
}

import Foundation
