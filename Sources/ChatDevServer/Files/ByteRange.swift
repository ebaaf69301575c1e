import Foundation

/// One range of a `Range: bytes=…` request header (RFC 9110 §14), as CDNs answer it: `a-b`,
/// `a-` (to the end) or `-n` (the last n bytes), clipped to the file. A header with several
/// ranges, or one that is not a byte range, is ignored and the whole file served (which the
/// RFC allows); a range that starts past the end is unsatisfiable (416).
struct ByteRange: Equatable {
    /// The first byte served.
    let first: Int64
    /// The last byte served (inclusive).
    let last: Int64

    /// What a `Range` header asks of a file of `size` bytes.
    enum Request: Equatable {
        /// The whole file (no header, or one not understood).
        case whole
        /// Part of it.
        case part(ByteRange)
        /// Nothing the file has.
        case unsatisfiable
    }

    /// Reads `header` for a file of `size` bytes.
    static func request(_ header: String?, size: Int64) -> Request {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else { return .whole }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard let dash = spec.firstIndex(of: "-") else { return .whole }
        let start = spec[..<dash]
        let end = spec[spec.index(after: dash)...]
        if start.isEmpty {
            guard let suffix = Int64(end), suffix > 0 else { return size == 0 ? .unsatisfiable : .whole }
            guard size > 0 else { return .unsatisfiable }
            return .part(ByteRange(first: max(size - suffix, 0), last: size - 1))
        }
        guard let first = Int64(start), first >= 0 else { return .whole }
        guard first < size else { return .unsatisfiable }
        if end.isEmpty { return .part(ByteRange(first: first, last: size - 1)) }
        guard let last = Int64(end), last >= first else { return .whole }
        return .part(ByteRange(first: first, last: min(last, size - 1)))
    }

    /// How many bytes it covers.
    var count: Int64 { last - first + 1 }
}
