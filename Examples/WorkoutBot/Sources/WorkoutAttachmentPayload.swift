import ChatModels
import Foundation

extension AttachmentType {
    /// A workout session, as in Stream's custom attachment guide.
    public static let workout = Self(rawValue: "workout")
    /// The weekly totals the workout bot answers with.
    public static let workoutSummary = Self(rawValue: "workout-summary")
}

/// A workout session, exactly as in Stream's custom-attachment guide (same fields, same keys).
public struct WorkoutAttachmentPayload: AttachmentPayload {
    /// `.workout`.
    public static let type: AttachmentType = .workout

    /// A picture of the workout.
    public var imageURL: URL?
    /// Distance in meters.
    public var workoutDistanceMeters: Int?
    /// `walk`, `run`, `ride`, ...
    public var workoutType: String?
    /// Duration in seconds.
    public var workoutDurationSeconds: Int?
    /// Energy in calories.
    public var workoutEnergyCal: Int?

    private enum CodingKeys: String, CodingKey {
        case workoutDistanceMeters = "workout-distance-meters"
        case workoutType = "workout-type"
        case workoutDurationSeconds = "workout-duration-seconds"
        case workoutEnergyCal = "workout-energy-cal"
        case imageURL = "image_url"
    }

    /// A workout.
    public init(
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

/// A user's totals for one week, sent back as a `workout-summary` attachment.
public struct WorkoutSummaryPayload: AttachmentPayload {
    /// `.workoutSummary`.
    public static let type: AttachmentType = .workoutSummary

    /// Whose totals.
    public var userId: String
    /// Monday of the week (UTC), `2026-11-16`.
    public var weekStart: String
    /// Total distance in meters.
    public var distanceMeters: Int
    /// Total duration in seconds.
    public var durationSeconds: Int
    /// Total energy in calories.
    public var energyCal: Int
    /// Number of workouts.
    public var count: Int
    /// The user's weekly goal in meters (`/goal`), if they set one.
    public var goalDistanceMeters: Int?
    /// The workouts the goal counts (`run`); nil for any.
    public var goalType: String?
    /// The meters of the week's workouts that count toward the goal.
    public var goalProgressMeters: Int?

    private enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case weekStart = "week_start"
        case distanceMeters = "distance_meters"
        case durationSeconds = "duration_seconds"
        case energyCal = "energy_cal"
        case count
        case goalDistanceMeters = "goal_distance_meters"
        case goalType = "goal_type"
        case goalProgressMeters = "goal_progress_meters"
    }

    /// A summary.
    public init(userId: String, weekStart: String, distanceMeters: Int, durationSeconds: Int, energyCal: Int, count: Int) {
        self.userId = userId
        self.weekStart = weekStart
        self.distanceMeters = distanceMeters
        self.durationSeconds = durationSeconds
        self.energyCal = energyCal
        self.count = count
    }
}
