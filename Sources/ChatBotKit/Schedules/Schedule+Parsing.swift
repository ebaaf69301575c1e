import ChatModels
import Foundation

extension Schedule {
    /// Reads a schedule as bots.yaml writes it: `every 30m` (a duration of at least a second),
    /// `daily 09:00`, or a day and a time, `mon 09:00` (`monday`, `weekly mon 09:00`), each
    /// with a time zone after it if not UTC (`daily 18:30 Europe/Berlin`).
    public init(parsing text: String) throws(ScheduleError) {
        let words = text.lowercased().split(whereSeparator: \.isWhitespace).map(String.init)
        let original = text.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let first = words.first else { throw ScheduleError(text, "it is empty") }
        if first == "every" {
            guard words.count == 2, let interval = DurationText.parse(words[1]), interval >= .seconds(1) else {
                throw ScheduleError(text, "after every comes a duration of at least a second, such as every 30m")
            }
            self = .every(interval)
            return
        }
        var rest = words[...]
        let isWeekly = rest.first == "weekly"
        if isWeekly { rest = rest.dropFirst() }
        let weekday: Weekday?
        if rest.first == "daily", !isWeekly {
            weekday = nil
        } else if let name = rest.first, let day = Weekday.allCases.first(where: { name == $0.name || name == String($0.name.prefix(3)) }) {
            weekday = day
        } else {
            throw ScheduleError(text, "it starts with every, daily or a day of the week (mon, tue, …)")
        }
        rest = rest.dropFirst()
        guard let time = rest.first, let (hour, minute) = Self.clockTime(time) else {
            throw ScheduleError(text, "a time of day comes next, 00:00 to 23:59, such as 09:00")
        }
        rest = rest.dropFirst()
        let zoneIndex = rest.startIndex
        var timeZone = TimeZone.utc
        if !rest.isEmpty {
            guard rest.count == 1, let zone = TimeZone(identifier: original[zoneIndex]) else {
                throw ScheduleError(text, "\(original[zoneIndex...].joined(separator: " ")) is not a time zone, such as UTC or Europe/Berlin")
            }
            timeZone = zone
        }
        self = weekday.map { .weekly(on: $0, at: hour, minute, in: timeZone) } ?? .daily(at: hour, minute, in: timeZone)
    }

    /// `09:00` as hour and minute.
    private static func clockTime(_ text: String) -> (Int, Int)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]), isTimeOfDay(hour, minute) else {
            return nil
        }
        return (hour, minute)
    }
}

/// A schedule that cannot be read: what is wrong with it.
public struct ScheduleError: Error, Sendable, CustomStringConvertible {
    /// `bot.schedule_unreadable`.
    public let code = "bot.schedule_unreadable"
    /// What is wrong, with the text.
    public let message: String

    init(_ text: String, _ reason: String) {
        message = "\"\(text)\" is not a schedule: \(reason)"
    }

    /// `[bot.schedule_unreadable] "…" is not a schedule: …`.
    public var description: String { "[\(code)] \(message)" }
}
