import ChatModels
import Foundation
import Testing

// The custom payload these tests decode is ChatTestSupport's DocsWorkoutPayload (it says why
// it is not the WorkoutBot example's). ChatTestSupport, not ChatBotKitTesting, for it and the
// scratch folder: ChatBotKitTesting runs a dev server and bots, and this target tests the model
// alone, so it builds nothing above ChatModels.

enum Fixture {
    static func data(_ name: String) throws -> Data {
        let folder = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        return try Data(contentsOf: folder.appendingPathComponent(name))
    }

    static func json(_ name: String) throws -> RawJSON {
        try JSONParser().parse(try data(name))
    }

    /// The built-in attachment fixtures, in file order.
    static func attachments() throws -> [JSONObject] {
        try #require(try json("attachments.json").arrayValue).compactMap(\.objectValue)
    }

    /// A `message.new` event whose message carries `attachments`.
    static func messageNew(with attachments: [JSONObject]) throws -> Data {
        guard case .object(var event) = try json("message-new.json"), case .object(var message)? = event["message"] else {
            throw JSONError(code: .invalidValue, message: "fixture is not an event")
        }
        message["attachments"] = .array(attachments.map(RawJSON.object))
        event["message"] = .object(message)
        return JSONWriter.data(.object(event))
    }
}
