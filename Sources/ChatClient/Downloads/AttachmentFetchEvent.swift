import Foundation

/// What a download reports, like the seed's attachment fetcher: progress, then the file.
public enum AttachmentFetchEvent: Sendable, Equatable {
    /// Bytes received so far and the total (0 while unknown).
    case progress(bytes: Int64, total: Int64)
    /// The downloaded file.
    case completed(URL)
}
