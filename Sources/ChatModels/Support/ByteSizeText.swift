/// Sizes written the way people write them in configuration: `25MB`, `100MB`, `512KB`, `1GB`,
/// `1048576`. Units are powers of 1024 (`MB` = MiB), as upload limits usually are.
public enum ByteSizeText {
    /// Parses a size; `nil` for anything that is not a non-negative number with an optional unit.
    public static func parse(_ text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).uppercased()
        let units: [(String, Double)] = [
            ("KIB", 1024), ("MIB", 1_048_576), ("GIB", 1_073_741_824), ("KB", 1024), ("MB", 1_048_576), ("GB", 1_073_741_824),
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
}

import Foundation
