/// Sizes written the way people write them in configuration: `25MB`, `100MB`, `512KB`, `1GB`,
/// `1048576`, `512 bytes`. Units are powers of 1024 (`MB` = MiB), as upload limits usually are.
public enum ByteSizeText {
    /// Parses a size; `nil` for anything that is not a non-negative number with an optional unit.
    public static func parse(_ text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).uppercased()
        let units: [(String, Double)] = [
            ("BYTES", 1), ("BYTE", 1), ("KIB", 1024), ("MIB", 1_048_576), ("GIB", 1_073_741_824),
            ("KB", 1024), ("MB", 1_048_576), ("GB", 1_073_741_824),
            ("K", 1024), ("M", 1_048_576), ("G", 1_073_741_824), ("B", 1),
        ]
        for (suffix, size) in units where trimmed.hasSuffix(suffix) {
            guard let value = Double(trimmed.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)), value >= 0, value.isFinite else {
                return nil
            }
            return Int64((value * size).rounded())
        }
        guard let value = Int64(trimmed), value >= 0 else { return nil }
        return value
    }

    /// A size the way ``parse(_:)`` reads it back, rounded to one decimal in the largest unit
    /// it reaches: `512 bytes`, `1.5 KB`, `100 MB`. For messages that people read.
    public static func format(_ bytes: Int64) -> String {
        let units: [(String, Double)] = [("GB", 1_073_741_824), ("MB", 1_048_576), ("KB", 1024)]
        func rounded(_ unit: Int) -> Double { (Double(bytes) / units[unit].1 * 10).rounded() / 10 }
        guard var unit = units.firstIndex(where: { Double(bytes) >= $0.1 }) else { return bytes == 1 ? "1 byte" : "\(bytes) bytes" }
        // 1,048,570 bytes rounds to 1024 KB: the next unit up says it better.
        if unit > 0, rounded(unit) >= 1024 { unit -= 1 }
        let value = rounded(unit)
        return "\(value == value.rounded() ? String(Int64(value)) : String(value)) \(units[unit].0)"
    }
}

import Foundation
