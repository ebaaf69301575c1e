/// Durations written the way people write them in configuration: `2s`, `10m`, `14d`, `500ms`, `1h`.
public enum DurationText {
    /// Parses a duration; `nil` when the text is not a positive number followed by ms, s, m, h or d.
    public static func parse(_ text: String) -> Duration? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400)]
        for (suffix, seconds) in units where trimmed.hasSuffix(suffix) {
            let number = trimmed.dropLast(suffix.count)
            // "ms" must not be read as "m" followed by "s".
            if suffix == "s", number.hasSuffix("m") { continue }
            guard let value = Double(number), value > 0, value.isFinite else { return nil }
            return .milliseconds(Int64((value * seconds * 1000).rounded()))
        }
        return nil
    }

    /// Writes a duration in the largest unit that divides it (`14d`, `90s`, `250ms`).
    public static func format(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        for (suffix, size) in [("d", Int64(86_400_000)), ("h", 3_600_000), ("m", 60_000), ("s", 1000)]
        where milliseconds % size == 0 && milliseconds >= size {
            return "\(milliseconds / size)\(suffix)"
        }
        return "\(milliseconds)ms"
    }
}

import Foundation
