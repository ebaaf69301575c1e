import ChatBotKit
import ChatModels
import Foundation

extension WorkoutBot {
    /// `/log run 5km 25m 400kcal`: the app's custom command for logging a workout by typing it.
    /// The sender alone sees the workout read back as a `workout` attachment, with Log and Cancel
    /// buttons; Log posts it, as the sender's message with that attachment, for everyone, and the
    /// bot then records it like any posted workout (and answers with the week's summary).
    static func addLogCommand(to bot: Bot) {
        bot.customCommand("log", description: "Log a workout", arguments: "[type] [distance km] [duration] [energy kcal]") { request in
            if request.formData["action"] == "cancel" { return .remove }
            let workout: WorkoutAttachmentPayload
            do {
                workout = try typedWorkout(request.arguments)
            } catch let error as LogCommandError {
                return .error("\(error.message) Type it as /log run 5km 25m 400kcal.")
            }
            let attachment = AnyAttachmentPayload(payload: workout)
            if request.formData["action"] == "log" { return .post(text: "\(describe(workout)) (logged with /log)", attachments: [attachment]) }
            return .ephemeral(
                text: "Log \(describe(workout))?", attachments: [attachment],
                buttons: [.button("Log", value: "log", style: "primary"), .button("Cancel", value: "cancel")])
        }
    }

    /// Why a `/log` could not be read: what to fix, for its sender.
    public struct LogCommandError: Error, Sendable, Equatable {
        /// `workout.log_unreadable`.
        public let code = "workout.log_unreadable"
        /// Which word is wrong, and how.
        public let message: String
    }

    /// The workout `/log`'s words describe: a type (a word), a distance (`5km`, `5.2km`), a
    /// duration (`25m`, `1h`, `90s`) and an energy (`400kcal`), in any order, each at most once.
    public static func typedWorkout(_ arguments: String) throws(LogCommandError) -> WorkoutAttachmentPayload {
        var workout = WorkoutAttachmentPayload()
        for word in arguments.lowercased().split(whereSeparator: \.isWhitespace).map(String.init) {
            if word.hasSuffix("km"), let kilometers = Double(word.dropLast(2)), kilometers > 0, kilometers < 10_000 {
                guard workout.workoutDistanceMeters == nil else { throw LogCommandError(message: "Two distances: \(word) is one too many.") }
                workout.workoutDistanceMeters = Int((kilometers * 1000).rounded())
            } else if word.hasSuffix("kcal"), let energy = Int(word.dropLast(4)), energy > 0 {
                guard workout.workoutEnergyCal == nil else { throw LogCommandError(message: "Two energies: \(word) is one too many.") }
                workout.workoutEnergyCal = energy
            } else if let duration = DurationText.parse(word), duration >= .seconds(1) {
                guard workout.workoutDurationSeconds == nil else { throw LogCommandError(message: "Two durations: \(word) is one too many.") }
                workout.workoutDurationSeconds = Int(duration.components.seconds)
            } else if word.allSatisfy(\.isLetter) {
                guard workout.workoutType == nil else { throw LogCommandError(message: "Two workout types: \(word) is one too many.") }
                workout.workoutType = word
            } else {
                throw LogCommandError(message: "\"\(word)\" is not a distance (5km), a duration (25m), an energy (400kcal) or a type (run).")
            }
        }
        guard workout.workoutDistanceMeters != nil || workout.workoutDurationSeconds != nil || workout.workoutEnergyCal != nil else {
            throw LogCommandError(message: "Nothing to log: give a distance, a duration or an energy.")
        }
        return workout
    }

    /// `5.0 km run in 25m, 400 kcal`.
    static func describe(_ workout: WorkoutAttachmentPayload) -> String {
        var parts: [String] = []
        if let meters = workout.workoutDistanceMeters { parts.append("\(WorkoutReports.kilometers(meters)) km") }
        parts.append(workout.workoutType ?? "workout")
        var text = parts.joined(separator: " ")
        if let seconds = workout.workoutDurationSeconds { text += " in " + DurationText.format(.seconds(seconds)) }
        if let energy = workout.workoutEnergyCal { text += ", \(energy) kcal" }
        return text
    }
}
