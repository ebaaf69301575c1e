import ChatModels
import Foundation

extension ChatClient {
    /// The app's commands, built-in and custom (`GET /commands`; needs the API secret).
    public func commands() async throws -> [ChatCommand] {
        let response = try await perform(.get("/commands", operation: "ListCommands"))
        return (response["commands"]?.arrayValue ?? []).map(ChatCommand.init(json:))
    }

    /// Creates custom command `command`, or updates it when it exists and differs; returns
    /// whether anything changed (so setting up on every start costs one read).
    @discardableResult
    public func defineCommand(_ command: ChatCommand) async throws -> Bool {
        let existing = try await commands().first { $0.name == command.name }
        if existing == command { return false }
        if existing == nil {
            var body = command.fields
            body["name"] = .string(command.name)
            _ = try await perform(.post("/commands", body, operation: "CreateCommand"))
        } else {
            _ = try await perform(.put("/commands/\(Endpoint.escape(command.name))", command.fields, operation: "UpdateCommand"))
        }
        return true
    }

    /// Deletes custom command `name` (`DELETE /commands/{name}`).
    public func deleteCommand(named name: String) async throws {
        _ = try await perform(.delete("/commands/\(Endpoint.escape(name))", operation: "DeleteCommand"))
    }

    /// The names of the commands channels of `type` offer (`GET /channeltypes/{type}`).
    public func commandNames(ofChannelType type: ChannelType) async throws -> [String] {
        let response = try await perform(.get("/channeltypes/\(Endpoint.escape(type.rawValue))", operation: "GetChannelType"))
        return (response["commands"]?.arrayValue ?? []).compactMap { $0.stringValue ?? $0["name"]?.stringValue }
    }

    /// Makes channels of `type` offer `names` beside the commands they offer already; returns
    /// whether the type changed (`PUT /channeltypes/{type}`).
    @discardableResult
    public func offerCommands(_ names: [String], inChannelType type: ChannelType) async throws -> Bool {
        let current = try await commandNames(ofChannelType: type)
        let missing = names.filter { !current.contains($0) && !current.contains("all") }
        guard !missing.isEmpty else { return false }
        let body: JSONObject = ["commands": .array((current + missing).map(RawJSON.string))]
        _ = try await perform(.put("/channeltypes/\(Endpoint.escape(type.rawValue))", body, operation: "UpdateChannelType"))
        return true
    }

    /// Presses a button of an ephemeral command message (`POST /messages/{id}/action`): its
    /// custom command's handler is asked again with `formData`. Returns the message as it
    /// answered (posted, still ephemeral, or of type `error`), or nil when it removed it.
    public func runMessageAction(_ messageId: String, formData: [String: String], as userId: String? = nil) async throws -> Message? {
        var body: JSONObject = ["form_data": .object(JSONObject(formData.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))]
        if let user = try actingUser(userId, operation: "RunMessageAction") { body["user_id"] = .string(user) }
        let response = try await perform(.post("/messages/\(Endpoint.escape(messageId))/action", body, operation: "RunMessageAction"))
        guard let message = response["message"], !message.isNull else { return nil }
        return try ChatClient.message(in: response, operation: "RunMessageAction")
    }

    /// The attachment objects `message` is sent with: its local files checked against the
    /// app's upload rules and uploaded to `cid`, the others as they are. For messages that
    /// reach the service another way than ``sendMessage(_:to:as:progress:)``, such as the
    /// answer to a custom command.
    public func attachmentObjects(
        for message: OutgoingMessage, in cid: ChannelId, as userId: String? = nil, progress: (@Sendable (Double) -> Void)? = nil
    ) async throws -> [JSONObject] {
        // Only an upload needs someone to act as; typed payloads are written as they are.
        let uploads = message.attachments.contains { $0.uploadingState != nil }
        return try await uploadLocalFiles(of: message, in: cid, as: uploads ? try actingUser(userId, operation: "Upload") : nil, progress: progress)
    }
}
