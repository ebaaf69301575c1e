import ChatModels
import Foundation

/// The custom attachment of Stream's attachment docs, a workout, for this package's tests of
/// custom payloads (the model's decoding, the client's round trip).
///
/// It is not the WorkoutBot example's `WorkoutAttachmentPayload`, though the fields are the
/// same: the model and client tests must not build an example bot (and its database) to test
/// themselves, and the example may change its payload as the bot grows without moving what
/// those tests pin down. Package access: a bot's tests have payloads of their own.
package struct DocsWorkoutPayload: AttachmentPayload {
    package static let type = AttachmentType(rawValue: "workout")

    package var imageURL: URL?
    package var workoutDistanceMeters: Int?
    package var workoutType: String?
    package var workoutDurationSeconds: Int?
    package var workoutEnergyCal: Int?

    private enum CodingKeys: String, CodingKey {
        case workoutDistanceMeters = "workout-distance-meters"
        case workoutType = "workout-type"
        case workoutDurationSeconds = "workout-duration-seconds"
        case workoutEnergyCal = "workout-energy-cal"
        case imageURL = "image_url"
    }

    package init(
        imageURL: URL? = nil, workoutDistanceMeters: Int? = nil, workoutType: String? = nil, workoutDurationSeconds: Int? = nil,
        workoutEnergyCal: Int? = nil
    ) {
        self.imageURL = imageURL
        self.workoutDistanceMeters = workoutDistanceMeters
        self.workoutType = workoutType
        self.workoutDurationSeconds = workoutDurationSeconds
        self.workoutEnergyCal = workoutEnergyCal
    }
}
