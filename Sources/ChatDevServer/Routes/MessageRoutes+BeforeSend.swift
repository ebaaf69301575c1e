import ChatModels
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import Logging

/// The app's Before Message Send webhook on `SendMessage`: a new message is posted to
/// ``BeforeSendHook`` once the sender is known to be allowed to post it, and before anything is
/// stored or announced. Only new messages (Stream's page names the hook for sending, and
/// nothing else): edits, and the messages of custom commands (answered by their own handler),
/// do not go through it.
extension MessageRoutes {
    /// What becomes of the message.
    enum BeforeSendOutcome {
        /// Store it with this data (as sent, or as the hook rewrote it).
        case store(JSONObject)
        /// Answer the sender this and store nothing.
        case refused(JSONReply)
    }

    /// Asks the hook about `message`. `idChosen`: whether the sender chose its id; the page's
    /// example shows `"id": ""` for a message whose id the server makes, and so does this.
    func checkBeforeSending(
        _ message: StoredMessage, with hook: BeforeSendHook, idChosen: Bool, principal: Principal, request: Request, context: DevRequestContext
    ) async throws -> BeforeSendOutcome {
        let operation = "SendMessage"
        let renderer = await state.renderer(for: request)
        let (rendered, channel) = try await state.store.read { db -> (JSONObject, JSONObject) in
            try checkSender(db, message.cid, principal, message.userId, operation: operation)
            try requireUnusedId(message.id, db, operation: operation)
            // Rendered as every message the server hands out is: its links signed afresh, so a
            // link that expired before it was sent reaches the hook working.
            let rendered = try renderer.messages([message], viewer: principal.userId, in: db)[0]
            let stored = try DevServerState.requireChannel(db, message.cid, operation: operation)
            let creator = try stored.createdBy.flatMap { try UsersTable.fetch(db, $0) }
            let memberCount = try ChannelsTable.memberCount(db, message.cid)
            return (rendered, renderer.channel(stored, memberCount: memberCount, createdBy: creator))
        }
        var sent = rendered
        if !idChosen { sent["id"] = "" }
        let body: JSONObject = [
            "message": .object(sent), "user": rendered["user"] ?? .object(["id": .string(message.userId)]), "channel": .object(channel),
            "request_info": .object(requestInfo(principal, request, context)),
        ]
        switch await hook.call(body) {
        case .pass, .failed:
            return .store(message.data)
        case .reject(let text):
            return .refused(MessageRoutes.refusal(rendered, text))
        case .rewrite(let fields):
            let rewritten = BeforeSendHook.rewritten(message.data, by: fields)
            do {
                try MessageRoutes.validate(rewritten, operation: operation)
            } catch let error as APIError {
                // An answer the message cannot take is no structured rejection: fail open.
                state.logger.warning("The before-send hook rewrote a message into one the service refuses (\(error.message)); it is stored as sent")
                return .store(message.data)
            }
            return .store(rewritten)
        }
    }

    /// `request_info`: "information about the client that performed the request": `type`
    /// (`client` for a user's token, `server` for the app's), `ip`, `user_agent`, `sdk`
    /// (`X-Stream-Client`), and `ext` (the `x-stream-ext` header, passed as it is).
    func requestInfo(_ principal: Principal, _ request: Request, _ context: DevRequestContext) -> JSONObject {
        var info: JSONObject = ["type": .string(principal == .server ? "server" : "client")]
        if let ip = context.remoteIP { info["ip"] = .string(ip) }
        if let agent = request.headers[.userAgent] { info["user_agent"] = .string(agent) }
        if let sdk = request.headers[HTTPField.Name("X-Stream-Client")!] { info["sdk"] = .string(sdk) }
        if let ext = request.headers[HTTPField.Name("x-stream-ext")!] { info["ext"] = .string(ext) }
        return info
    }
}
