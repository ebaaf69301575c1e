import Foundation

/// A file-system failure in words: `"/srv/data: Permission denied"` instead of Foundation's
/// `Error Domain=NSCocoaErrorDomain Code=4 … UserInfo={…}`.
package enum FileErrorText {
    /// The path and the system's reason for a Foundation file error; other errors as they
    /// describe themselves.
    package static func describe(_ error: any Error) -> String {
        guard let cocoa = error as? CocoaError else { return "\(error)" }
        let reason: String
        if let underlying = cocoa.underlying {
            let posix = underlying as NSError
            reason = posix.domain == NSPOSIXErrorDomain ? String(cString: strerror(Int32(posix.code))) : posix.localizedDescription
        } else {
            reason = cocoa.localizedDescription
        }
        return (cocoa.filePath ?? cocoa.url?.path).map { "\($0): \(reason)" } ?? reason
    }
}
