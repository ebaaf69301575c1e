@_spi(JSONEngine) import ChatJSON
import ChatModels
import Foundation

/// One Before Message Send request as the service posts it: `{"message", "user", "channel",
/// "request_info"}` (Stream's "Before Message Send Webhook" page). Only `message` is required;
/// the others are read when they are there, and a known field of the wrong type is an error
/// naming it.
struct BeforeSendRequest: Sendable {
    /// The message, decoded.
    var message: Message
    /// The message's JSON as sent.
    var messageJSON: JSONObject
    /// Who sent it.
    var user: User?
    /// The channel's JSON (its `cid`, `config`, custom fields).
    var channelJSON: JSONObject
    /// The channel, when its `cid` is one.
    var channel: ChannelId?
    /// `request_info`: the client that sent it.
    var requestInfo: JSONObject

    /// Reads a request body (already checked and inflated).
    init(jsonData: Data) throws(JSONError) {
        self = try JSONReader.read(jsonData) { reader throws(JSONError) in try BeforeSendRequest(reader: reader, node: 0) }
    }

    private init(reader: JSONReader, node: Int) throws(JSONError) {
        let object = try reader.readObject(node)
        guard let messageNode = reader.member(object, "message"), !reader.isNull(messageNode) else { throw .missing("message") }
        do throws(JSONError) {
            message = try Message(reader: reader, node: messageNode)
            guard case .object(let json) = try reader.rawJSON(messageNode) else { throw JSONError.missing("message") }
            messageJSON = json
        } catch {
            throw error.prefixed("message")
        }
        user = nil
        if let userNode = reader.member(object, "user") {
            if !reader.isNull(userNode) {
                do throws(JSONError) { user = try User(reader: reader, node: userNode) } catch { throw error.prefixed("user") }
            }
        }
        channelJSON = [:]
        if let channelNode = reader.member(object, "channel"), !reader.isNull(channelNode) {
            guard case .object(let json) = try reader.rawJSON(channelNode) else { throw reader.mismatch(channelNode, expected: "an object").prefixed("channel") }
            channelJSON = json
        }
        channel = (channelJSON["cid"]?.stringValue).flatMap { try? ChannelId(cid: $0) } ?? message.cid
        requestInfo = [:]
        if let infoNode = reader.member(object, "request_info"), !reader.isNull(infoNode) {
            guard case .object(let json) = try reader.rawJSON(infoNode) else {
                throw reader.mismatch(infoNode, expected: "an object").prefixed("request_info")
            }
            requestInfo = json
        }
        // The sender is the request's `user`; the message's own, when only it names one.
        if user == nil { user = message.user }
    }
}
