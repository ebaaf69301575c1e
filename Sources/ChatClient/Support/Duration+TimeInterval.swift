import Foundation

extension Duration {
    /// The duration as seconds, for `Date` arithmetic.
    package var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
