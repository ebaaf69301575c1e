import ChatModels
import Foundation

extension AttachmentType {
    static let workout = Self(rawValue: "workout")
}

/// The seed's workout payload, exactly as in Stream's attachment docs.
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
