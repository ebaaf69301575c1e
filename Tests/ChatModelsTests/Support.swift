import ChatModels
import Foundation

extension AttachmentType {
    static let workout = Self(rawValue: "workout")
}

/// The seed's workout payload, exactly as in Stream's attachment docs (with `static let`, as
/// Swift 6 requires for a static property).
struct WorkoutAttachmentPayload: AttachmentPayload {
    static let type: AttachmentType = .workout

    var imageURL: URL?
    var workoutDistanceMeters: Int?
    var workoutType: String?
    var workoutDurationSeconds: Int?
    var workoutEnergyCal: Int?

    private enum CodingKeys: String, CodingKey {
        case workoutDistanceMeters = "workout-distance-meters"
        case workoutType = "workout-type"
        case workoutDurationSeconds = "workout-duration-seconds"
        case workoutEnergyCal = "workout-energy-cal"
        case imageURL = "image_url"
    }
}

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

import Testing
