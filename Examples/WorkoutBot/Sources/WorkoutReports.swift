import Foundation

/// The files `/workouts` answers with: a CSV export and an SVG chart of the weekly distance.
enum WorkoutReports {
    /// The Monday (UTC) of the week containing `date`.
    static func weekStart(of date: Date) -> Date {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.dateInterval(of: .weekOfYear, for: date)?.start ?? date
    }

    static func day(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: date)
    }

    /// `date,type,distance_meters,duration_seconds,energy_cal` rows, oldest first.
    static func csv(_ records: [WorkoutStore.Record]) -> String {
        var lines = ["date,type,distance_meters,duration_seconds,energy_cal"]
        for record in records {
            let type = record.type.contains(",") || record.type.contains("\"") ? "\"\(record.type.replacingOccurrences(of: "\"", with: "\"\""))\"" : record.type
            lines.append("\(RFC3339Text.string(record.date)),\(type),\(record.distanceMeters),\(record.durationSeconds),\(record.energyCal)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A bar chart of the distance of the last `weeks` weeks ending with the week of `now`.
    static func svgChart(_ records: [WorkoutStore.Record], userId: String, weeks: Int = 8, now: Date = Date()) -> String {
        let lastWeek = weekStart(of: now)
        let starts = (0..<weeks).reversed().map { lastWeek.addingTimeInterval(-Double($0) * 7 * 86_400) }
        let totals = starts.map { start in
            records.filter { weekStart(of: $0.date) == start }.reduce(0) { $0 + $1.distanceMeters }
        }
        let width = 80 + weeks * 60
        let height = 260
        let top = max(1, totals.max() ?? 1)
        var bars = ""
        for (index, total) in totals.enumerated() {
            let barHeight = Int(Double(total) / Double(top) * 160)
            let x = 60 + index * 60
            bars += """
                <rect x="\(x)" y="\(200 - barHeight)" width="40" height="\(barHeight)" fill="#2f7de1"/>
                <text x="\(x + 20)" y="\(195 - barHeight)" font-size="11" text-anchor="middle">\(WorkoutReports.kilometers(total))</text>
                <text x="\(x + 20)" y="220" font-size="10" text-anchor="middle">\(day(starts[index]).dropFirst(5))</text>

                """
        }
        let escapedUser = userId.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)">
            <title>Weekly distance (km) of \(escapedUser)</title>
            <text x="20" y="24" font-size="14" font-family="sans-serif">Weekly distance (km) of \(escapedUser)</text>
            <line x1="50" y1="200" x2="\(width - 20)" y2="200" stroke="#333"/>
            \(bars)</svg>

            """
    }

    /// Meters as kilometers with one decimal, rounded half up (`5250` is `5.3`). Written by hand:
    /// `String(format:)` goes through NSString on Linux and took a tenth of a `/log` answer.
    static func kilometers(_ meters: Int) -> String {
        let tenths = (abs(meters) + 50) / 100
        return "\(meters < 0 ? "-" : "")\(tenths / 10).\(tenths % 10)"
    }

    /// `HH:mm` in UTC.
    static func clockTime(_ date: Date) -> String {
        let secondOfDay = Int(date.timeIntervalSince1970.rounded(.down)) % 86_400
        let (hours, minutes) = (secondOfDay / 3600, secondOfDay % 3600 / 60)
        return "\(hours < 10 ? "0" : "")\(hours):\(minutes < 10 ? "0" : "")\(minutes)"
    }

    /// `31m 05s`, or `1h 02m` from an hour on.
    static func minutesAndSeconds(_ seconds: Int) -> String {
        func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        guard seconds >= 3600 else { return "\(seconds / 60)m \(twoDigits(seconds % 60))s" }
        return "\(seconds / 3600)h \(twoDigits(seconds % 3600 / 60))m"
    }
}

/// RFC 3339 dates for the CSV (UTC, seconds).
enum RFC3339Text {
    static func string(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }
}
