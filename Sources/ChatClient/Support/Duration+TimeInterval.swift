import Foundation

extension Duration {
    /// The duration as seconds, for `Date` arithmetic.
    var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
