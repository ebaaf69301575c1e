import ChatModels
import Foundation

/// When a bot's scheduled handler runs: every so often, every day at a time, or every week on a
/// day at a time, in a time zone (UTC unless given).
///
/// Intervals are counted from the Unix epoch, so `every 1h` runs on the hour whenever the bot
/// was started, and every node and every restart agrees on the runs.
public struct Schedule: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case every(Duration)
        case daily(hour: Int, minute: Int)
        case weekly(Weekday, hour: Int, minute: Int)
    }

    let kind: Kind
    /// The time zone of the day and time.
    public let timeZone: TimeZone

    /// A day of the week.
    public enum Weekday: Int, Sendable, CaseIterable {
        /// Sunday.
        case sunday = 1
        /// Monday.
        case monday
        /// Tuesday.
        case tuesday
        /// Wednesday.
        case wednesday
        /// Thursday.
        case thursday
        /// Friday.
        case friday
        /// Saturday.
        case saturday

        /// `monday`, as bots.yaml spells it (`mon` too).
        var name: String { String(describing: self) }
    }

    /// Every `interval` (at least a second), on its multiples since the Unix epoch.
    public static func every(_ interval: Duration) -> Schedule {
        precondition(interval >= .seconds(1), "a schedule's interval must be at least a second, found \(interval)")
        return Schedule(kind: .every(interval), timeZone: .utc)
    }

    /// Every day at `hour`:`minute` in `timeZone`.
    public static func daily(at hour: Int, _ minute: Int = 0, in timeZone: TimeZone = .utc) -> Schedule {
        precondition(isTimeOfDay(hour, minute), "a schedule's time must be 00:00 to 23:59, found \(hour):\(minute)")
        return Schedule(kind: .daily(hour: hour, minute: minute), timeZone: timeZone)
    }

    /// Every week on `weekday` at `hour`:`minute` in `timeZone`.
    public static func weekly(
        on weekday: Weekday, at hour: Int, _ minute: Int = 0, in timeZone: TimeZone = .utc
    ) -> Schedule {
        precondition(isTimeOfDay(hour, minute), "a schedule's time must be 00:00 to 23:59, found \(hour):\(minute)")
        return Schedule(kind: .weekly(weekday, hour: hour, minute: minute), timeZone: timeZone)
    }

    /// Whether `hour`:`minute` is a time of day, 00:00 to 23:59.
    static func isTimeOfDay(_ hour: Int, _ minute: Int) -> Bool {
        (0..<24).contains(hour) && (0..<60).contains(minute)
    }

    /// The first run after `date`.
    public func nextRun(after date: Date) -> Date {
        switch kind {
        case .every(let interval):
            let seconds = interval.timeInterval
            return Date(timeIntervalSince1970: (floor(date.timeIntervalSince1970 / seconds) + 1) * seconds)
        case .daily(let hour, let minute):
            return next(DateComponents(hour: hour, minute: minute, second: 0), after: date)
        case .weekly(let weekday, let hour, let minute):
            return next(DateComponents(hour: hour, minute: minute, second: 0, weekday: weekday.rawValue), after: date)
        }
    }

    /// The last run in `(start, end]`, if any: what is due when the clock has moved from
    /// `start` to `end` (one run, however many were passed over).
    public func lastRun(after start: Date, upTo end: Date) -> Date? {
        if case .every(let interval) = kind {
            let seconds = interval.timeInterval
            let run = Date(timeIntervalSince1970: floor(end.timeIntervalSince1970 / seconds) * seconds)
            return run > start ? run : nil
        }
        var run = nextRun(after: start)
        guard run <= end else { return nil }
        while case let later = nextRun(after: run), later <= end { run = later }
        return run
    }

    private func next(_ components: DateComponents, after date: Date) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        // A time a daylight-saving change skips runs at the next time that exists.
        return calendar.nextDate(after: date, matching: components, matchingPolicy: .nextTime) ?? date.addingTimeInterval(86_400)
    }

    /// `every 30m`, `daily 09:00 UTC`, `monday 09:00 Europe/Berlin`: as bots.yaml writes it.
    public var description: String {
        let zone = timeZone.identifier == "GMT" ? "UTC" : timeZone.identifier
        switch kind {
        case .every(let interval): return "every \(DurationText.format(interval))"
        case .daily(let hour, let minute): return "daily \(Self.clock(hour, minute)) \(zone)"
        case .weekly(let weekday, let hour, let minute): return "\(weekday.name) \(Self.clock(hour, minute)) \(zone)"
        }
    }

    private static func clock(_ hour: Int, _ minute: Int) -> String {
        (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
    }
}

extension TimeZone {
    /// UTC, a schedule's time zone unless it names another (usable from the public
    /// constructors' default arguments).
    @usableFromInline static let utc = TimeZone(identifier: "UTC")!
}
