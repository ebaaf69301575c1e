import Foundation

/// This process's memory as the kernel counts it (`/proc/self/status`).
struct ResourceUsage {
    /// Resident set size now, in bytes.
    var residentBytes: Int64
    /// The highest resident set size so far (VmHWM), in bytes.
    var peakResidentBytes: Int64

    static func current() -> ResourceUsage {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        func kilobytes(_ field: String) -> Int64 {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return 0 }
            return Int64(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "0") ?? 0
        }
        return ResourceUsage(residentBytes: kilobytes("VmRSS") * 1024, peakResidentBytes: kilobytes("VmHWM") * 1024)
    }
}

/// Mebibytes, for printing.
func mebibytes(_ bytes: Int64) -> Double { Double(bytes) / 1_048_576 }
