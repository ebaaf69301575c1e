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
        // Most messages are not commands: a text without any slash is answered without Foundation.
        guard text.utf8.contains(UInt8(ascii: "/")) else { return nil }
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
