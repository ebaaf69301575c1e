import Foundation

extension URL {
    /// Whether the scheme is http or https, in any case: the links a preview may fetch or show.
    var hasWebScheme: Bool {
        guard let scheme = scheme?.lowercased() else { return false }
        return scheme == "http" || scheme == "https"
    }
}
