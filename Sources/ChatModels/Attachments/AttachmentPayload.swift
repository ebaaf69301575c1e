/// The typed payload of one attachment type.
///
/// Conform your own payloads and register them (`registry.registerAttachment(WorkoutAttachmentPayload.self)`);
/// keep every field optional so new or missing fields never break decoding:
/// ```swift
/// struct WorkoutAttachmentPayload: AttachmentPayload {
///     static let type: AttachmentType = .workout
///     var workoutDistanceMeters: Int?
///     private enum CodingKeys: String, CodingKey {
///         case workoutDistanceMeters = "workout-distance-meters"
///     }
/// }
/// ```
/// The payload is the attachment's JSON without its `type` key, which the attachment carries.
public protocol AttachmentPayload: Codable, Hashable, Sendable {
    /// The attachment type this payload decodes.
    static var type: AttachmentType { get }
}
