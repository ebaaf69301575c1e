import Foundation
import HummingbirdCore

/// Query items decoded as HTML forms encode them: `+` is a space and `%XX` a byte. Python's
/// `requests` and `urllib.parse.urlencode` write queries this way; Hummingbird's own decoding
/// leaves `+` alone, which would corrupt JSON in `json=` and `payload=`.
struct FormQuery: Sendable {
    private let items: [String: String]

    init(_ uri: URI) {
        self.init(rawQuery: uri.query ?? "")
    }

    init(rawQuery: String) {
        var items: [String: String] = [:]
        for pair in rawQuery.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = FormQuery.decode(parts[0])
            // The first occurrence wins, as with Stream's servers.
            if items[key] == nil { items[key] = parts.count > 1 ? FormQuery.decode(parts[1]) : "" }
        }
        self.items = items
    }

    subscript(_ name: String) -> String? { items[name] }

    static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}

extension Request {
    /// A query item, form-decoded.
    func query(_ name: String) -> String? { FormQuery(uri)[name] }
}

import Hummingbird
