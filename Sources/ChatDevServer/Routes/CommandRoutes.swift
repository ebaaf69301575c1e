import ChatModels
import Foundation
import Hummingbird

/// Custom commands (`/commands`) and the commands channel types offer (`/channeltypes`): what
/// an app sets up once so that `/name …` messages go to its `custom_action_handler_url`.
/// Server tokens only, as on the hosted service.
struct CommandRoutes {
    let state: DevServerState

    func register(on router: Router<DevRequestContext>) {
        router.post("/commands") { request, _ in try await create(request) }
        router.get("/commands") { request, _ in try await list(request) }
        router.get("/commands/:name") { request, context in try await get(request, context) }
        router.put("/commands/:name") { request, context in try await update(request, context) }
        router.delete("/commands/:name") { request, context in try await delete(request, context) }
        router.get("/channeltypes") { request, _ in try await channelTypes(request) }
        router.get("/channeltypes/:type") { request, context in try await channelType(request, context) }
        router.put("/channeltypes/:type") { request, context in try await updateChannelType(request, context) }
    }

    /// `POST /commands` `{name, description, args?, set?}`.
    func create(_ request: Request) async throws -> JSONReply {
        let operation = "CreateCommand"
        try await requireServer(request, operation)
        let body = try await state.jsonBody(request, operation: operation)
        let name = body["name"]?.stringValue ?? ""
        try CommandDefinition.checkName(name, operation: operation)
        guard !CommandDefinition.isBuiltIn(name) else {
            throw APIError.input(operation, "\(name) is a built-in command; choose another name")
        }
        guard let description = body["description"]?.stringValue, !description.isEmpty else {
            throw APIError.input(operation, "description is required: it is shown beside /\(name) in the command suggestions")
        }
        let args = try text(body, "args", operation) ?? ""
        let set = try text(body, "set", operation) ?? ""
        let now = state.clock.now()
        let command = try await state.store.write { db in
            try state.commands.update(db) { catalog throws -> CommandDefinition in
                guard catalog.custom[name] == nil else { throw APIError.input(operation, "command \(name) already exists") }
                let command = CommandDefinition(name: name, description: description, args: args, set: set, createdAt: now, updatedAt: now)
                catalog.custom[name] = command
                return command
            }
        }
        return JSONReply(["command": .object(command.json)], status: .created)
    }

    /// `GET /commands`: the built-in commands, then the custom ones by name.
    func list(_ request: Request) async throws -> JSONReply {
        try await requireServer(request, "ListCommands")
        let custom = state.commands.snapshot.custom.values.sorted { $0.name < $1.name }
        return JSONReply(["commands": .array((CommandDefinition.builtIns + custom).map { .object($0.json) })])
    }

    /// `GET /commands/{name}`: the command's fields at the top level.
    func get(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "GetCommand"
        try await requireServer(request, operation)
        let name = context.parameters.get("name") ?? ""
        guard let command = state.commands.snapshot.custom[name] ?? CommandDefinition.builtIns.first(where: { $0.name == name }) else {
            throw APIError.notFound(operation, "command \(name) does not exist")
        }
        return JSONReply(command.json)
    }

    /// `PUT /commands/{name}` `{description?, args?, set?}`.
    func update(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "UpdateCommand"
        try await requireServer(request, operation)
        let name = context.parameters.get("name") ?? ""
        let body = try await state.jsonBody(request, operation: operation)
        if let unknown = body.members.map(\.key).first(where: { !["description", "args", "set", "name"].contains($0) }) {
            throw APIError.input(operation, "\(unknown) is not a command field; a command has description, args and set")
        }
        let description = try text(body, "description", operation)
        if description?.isEmpty == true { throw APIError.input(operation, "description cannot be empty") }
        let args = try text(body, "args", operation)
        let set = try text(body, "set", operation)
        let now = state.clock.now()
        let command = try await state.store.write { db in
            try state.commands.update(db) { catalog throws -> CommandDefinition in
                guard var command = catalog.custom[name] else {
                    throw APIError.notFound(
                        operation, CommandDefinition.isBuiltIn(name) ? "\(name) is a built-in command and cannot be changed" : "command \(name) does not exist")
                }
                if let description { command.description = description }
                if let args { command.args = args }
                if let set { command.set = set }
                command.updatedAt = now
                catalog.custom[name] = command
                return command
            }
        }
        return JSONReply(["command": .object(command.json)])
    }

    /// `DELETE /commands/{name}`: also taken off the channel types that offer it.
    func delete(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "DeleteCommand"
        try await requireServer(request, operation)
        let name = context.parameters.get("name") ?? ""
        try await state.store.write { db in
            try state.commands.update(db) { catalog throws in
                guard catalog.custom.removeValue(forKey: name) != nil else {
                    throw APIError.notFound(
                        operation, CommandDefinition.isBuiltIn(name) ? "\(name) is a built-in command and cannot be deleted" : "command \(name) does not exist")
                }
                for (type, names) in catalog.channelTypes { catalog.channelTypes[type] = names.filter { $0 != name } }
            }
        }
        return JSONReply(["name": .string(name)])
    }

    /// `GET /channeltypes`: every channel type's configuration by name.
    func channelTypes(_ request: Request) async throws -> JSONReply {
        try await requireServer(request, "ListChannelTypes")
        let renderer = await state.renderer(for: request)
        let types = DevServerState.knownChannelTypes.sorted().map { ($0, RawJSON.object(renderer.config(ofChannelType: $0))) }
        return JSONReply(["channel_types": .object(JSONObject(types))])
    }

    /// `GET /channeltypes/{type}`: its configuration, commands as objects.
    func channelType(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "GetChannelType"
        try await requireServer(request, operation)
        let type = try state.channelType(context, operation: operation)
        return JSONReply(await state.renderer(for: request).config(ofChannelType: type))
    }

    /// `PUT /channeltypes/{type}` `{"commands": [names]}` (`all` for every command). The dev
    /// server's channel types are otherwise fixed, so other settings are refused by name rather
    /// than accepted and ignored.
    func updateChannelType(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "UpdateChannelType"
        try await requireServer(request, operation)
        let type = try state.channelType(context, operation: operation)
        let body = try await state.jsonBody(request, operation: operation)
        if let other = body.members.map(\.key).first(where: { $0 != "commands" }) {
            throw APIError.input(operation, "the dev server changes only a channel type's commands, not \(other)")
        }
        let entries = body["commands"]?.arrayValue ?? [.null]
        let names = entries.compactMap(\.stringValue)
        guard names.count == entries.count else {
            throw APIError.input(operation, "commands must be an array of command names (or [\"all\"])")
        }
        try await state.store.write { db in
            try state.commands.update(db) { catalog throws in
                if let unknown = names.first(where: { $0 != "all" && catalog.custom[$0] == nil && !CommandDefinition.isBuiltIn($0) }) {
                    throw APIError.input(operation, "command \(unknown) does not exist; create it with POST /commands first")
                }
                var unique: [String] = []
                for name in names where !unique.contains(name) { unique.append(name) }
                catalog.channelTypes[type] = unique
            }
        }
        var config = await state.renderer(for: request).config(ofChannelType: type)
        config["commands"] = .array((state.commands.snapshot.channelTypes[type] ?? []).map(RawJSON.string))
        return JSONReply(config)
    }

    private func requireServer(_ request: Request, _ operation: String) async throws {
        try await state.requireServer(request, operation, "commands and channel types can only be managed")
    }

    /// The string field `key` of `body`, nil when absent; another type is refused by name.
    private func text(_ body: JSONObject, _ key: String, _ operation: String) throws -> String? {
        guard let value = body[key], !value.isNull else { return nil }
        guard let string = value.stringValue else { throw APIError.input(operation, "\(key) must be a string") }
        return string
    }
}
