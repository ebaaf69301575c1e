import ChatModels
import Foundation

/// A channel to export (``ChatClient/exportChannels(_:includeTruncatedMessages:includeSoftDeletedChannels:clearDeletedMessageText:)``),
/// with the messages posted after `messagesSince` and before `messagesUntil` when given.
public struct ChannelExportRequest: Sendable, Hashable {
    /// The channel.
    public var cid: ChannelId
    /// Only messages posted after this.
    public var messagesSince: Date?
    /// Only messages posted before this.
    public var messagesUntil: Date?

    /// A channel to export, all of it by default.
    public init(_ cid: ChannelId, messagesSince: Date? = nil, messagesUntil: Date? = nil) {
        self.cid = cid
        self.messagesSince = messagesSince
        self.messagesUntil = messagesUntil
    }

    var json: RawJSON {
        var object: JSONObject = ["type": .string(cid.type.rawValue), "id": .string(cid.id)]
        if let messagesSince { object["messages_since"] = .string(RFC3339.string(from: messagesSince)) }
        if let messagesUntil { object["messages_until"] = .string(RFC3339.string(from: messagesUntil)) }
        return .object(object)
    }
}

/// An export as it stands (`GET /export_channels/{id}`).
public struct ChannelExportTask: Sendable, Hashable {
    /// The task's id.
    public var id: String
    /// `pending`, `running`, `completed` or `failed`.
    public var status: String
    /// The export file, once completed: a signed link that expires (each read signs a fresh one).
    public var url: URL?
    /// Why it failed, if it did.
    public var error: String?

    /// Whether it finished, successfully or not.
    public var isFinished: Bool { status == "completed" || status == "failed" }
}

/// One channel of an export file: the channel, its members, and its messages oldest first
/// (thread replies included).
public struct ChannelExport: Sendable, Hashable {
    /// The channel.
    public var channel: Channel
    /// Its messages, oldest first.
    public var messages: [Message]
    /// Its members.
    public var members: [Member]

    /// Reads an export file: one JSON object per channel, a line each (blank lines skipped).
    /// A line that is not a channel's export is an error naming the line and what is wrong.
    public static func read(from file: URL) throws -> [ChannelExport] {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw ChatClientError(code: .invalidRequest, message: "the export file \(file.path) cannot be read: \(error.localizedDescription)")
        }
        var exports: [ChannelExport] = []
        for (index, line) in data.split(separator: 0x0A).enumerated() where !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) {
            do {
                exports.append(try ChannelExport(json: try JSONParser().parse(Data(line))))
            } catch let error as ChatClientError {
                throw invalid("line \(index + 1) of the export file \(file.path) is not a channel's export: \(error.message)")
            } catch {
                throw invalid("line \(index + 1) of the export file \(file.path) is not JSON: \(error)")
            }
        }
        return exports
    }

    /// One channel's export from its JSON object.
    public init(json: RawJSON) throws {
        guard case .object(let object) = json else { throw Self.invalid("expected an object, found \(json.kindDescription)") }
        guard let channel = object["channel"] else { throw Self.invalid("the required field channel is missing") }
        do {
            self.channel = try Channel(json: channel)
        } catch {
            throw Self.invalid("channel: \(error)")
        }
        messages = try Self.list(object["messages"], "messages") { try Message(json: $0) }
        members = try Self.list(object["members"], "members") { try Member(json: $0) }
    }

    private static func list<Item>(_ value: RawJSON?, _ field: String, _ read: (RawJSON) throws -> Item) throws -> [Item] {
        guard let value, !value.isNull else { return [] }
        guard case .array(let elements) = value else { throw invalid("\(field): expected an array, found \(value.kindDescription)") }
        return try elements.enumerated().map { index, element in
            do {
                return try read(element)
            } catch {
                throw invalid("\(field)[\(index)]: \(error)")
            }
        }
    }

    private static func invalid(_ reason: String) -> ChatClientError { ChatClientError(code: .invalidResponse, message: reason) }
}
