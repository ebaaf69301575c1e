import ChatClient
import ChatModels
import Foundation

extension SharedLocation {
    /// `52.52000, 13.40500`.
    var coordinates: String { String(format: "%.5f, %.5f", latitude, longitude) }

    /// `location 52.52000, 13.40500, live until 10:45:00 UTC`: a location as the CLI shows it.
    var summary: String {
        guard let endAt else { return "location \(coordinates)" }
        let clock = RFC3339.string(from: endAt).dropFirst(11).prefix(8)
        return "location \(coordinates), live until \(clock) UTC"
    }
}
