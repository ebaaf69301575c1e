import Foundation

/// RFC 3339 timestamps as the chat API writes them: UTC, with or without fractional seconds
/// (milli, micro or nano), or with a numeric offset.
///
/// Hand-written because `ISO8601DateFormatter` is slow and cannot read nanoseconds.
public enum RFC3339 {
    /// Parses `2026-06-24T11:44:49.394479Z`, `2026-06-24T11:44:48.215772568Z`,
    /// `2026-06-24T11:44:49Z` or `2026-06-24T13:44:49+02:00`; `nil` for anything else.
    public static func date(from text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse($0) }
    }

    /// Formats a date in UTC with microseconds: `2026-06-24T11:44:49.394479Z`.
    public static func string(from date: Date) -> String {
        let totalMicros = (date.timeIntervalSince1970 * 1_000_000).rounded()
        var seconds = Int64((totalMicros / 1_000_000).rounded(.down))
        var micros = Int64(totalMicros - Double(seconds) * 1_000_000)
        if micros < 0 {
            micros += 1_000_000
            seconds -= 1
        }
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        var out = [UInt8]()
        out.reserveCapacity(27)
        func append(_ value: Int64, width: Int) {
            var digits = [UInt8](repeating: UInt8(ascii: "0"), count: width)
            var rest = value
            for index in stride(from: width - 1, through: 0, by: -1) {
                digits[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
            out.append(contentsOf: digits)
        }
        append(year, width: 4)
        out.append(UInt8(ascii: "-"))
        append(month, width: 2)
        out.append(UInt8(ascii: "-"))
        append(day, width: 2)
        out.append(UInt8(ascii: "T"))
        append(secondOfDay / 3600, width: 2)
        out.append(UInt8(ascii: ":"))
        append(secondOfDay % 3600 / 60, width: 2)
        out.append(UInt8(ascii: ":"))
        append(secondOfDay % 60, width: 2)
        out.append(UInt8(ascii: "."))
        append(micros, width: 6)
        out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }

    @_spi(JSONEngine) public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        // Fixed positions up to the seconds: `YYYY-MM-DDTHH:MM:SS` is 19 bytes.
        guard bytes.count >= 20, let base = bytes.baseAddress else { return nil }
        @inline(__always) func digits(_ at: Int, _ width: Int) -> Int64? {
            var value: Int64 = 0
            for offset in at..<(at + width) {
                let digit = base[offset] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value &* 10 &+ Int64(digit)
            }
            return value
        }
        let separator = base[10]
        guard base[4] == UInt8(ascii: "-"), base[7] == UInt8(ascii: "-"), base[13] == UInt8(ascii: ":"),
            base[16] == UInt8(ascii: ":"),
            separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t") || separator == UInt8(ascii: " "),
            let year = digits(0, 4), let month = digits(5, 2), let day = digits(8, 2), let hour = digits(11, 2),
            let minute = digits(14, 2), let second = digits(17, 2)
        else { return nil }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60,
            second <= 60
        else { return nil }
        var index = 19
        var fraction = 0.0
        if base[index] == UInt8(ascii: ".") {
            index += 1
            // Up to 18 digits fit an Int64 exactly; further digits cannot change a Double's seconds.
            var numerator: Int64 = 0
            var denominator: Int64 = 1
            let first = index
            while index < bytes.count {
                let digit = base[index] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                if index - first < 18 {
                    numerator = numerator &* 10 &+ Int64(digit)
                    denominator &*= 10
                }
                index += 1
            }
            guard index > first else { return nil }
            fraction = Double(numerator) / Double(denominator)
        }
        var offsetSeconds: Int64 = 0
        guard index < bytes.count else { return nil }
        switch base[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign: Int64 = base[index] == UInt8(ascii: "-") ? -1 : 1
            guard index + 6 == bytes.count, base[index + 3] == UInt8(ascii: ":"),
                let offsetHours = digits(index + 1, 2), let offsetMinutes = digits(index + 4, 2),
                offsetHours < 24, offsetMinutes < 60
            else { return nil }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
            index += 6
        default:
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = days(fromCivil: year, month, day)
        let whole = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: Double(whole) + fraction)
    }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    package static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01.
    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
