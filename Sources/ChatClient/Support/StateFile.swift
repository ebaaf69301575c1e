import ChatModels
import Foundation

/// A file of state kept between runs (a bot's checkpoint, an upload record): how it is written,
/// and what is done with one that cannot be read.
package enum StateFile {
    /// Writes `data` to `file`, creating its folder, and replaces the file there at once (a
    /// temporary file renamed): a crash while writing leaves the previous one, never half of one.
    package static func write(_ data: Data, to file: URL) throws {
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file, options: .atomic)
    }

    /// Moves `file` out of the way as `<file>.unreadable` (replacing an older one there), so a
    /// fresh file can be written and the bad one is still there to look at; the new location,
    /// or nil when it could not be moved.
    package static func setAside(_ file: URL) -> URL? {
        let aside = file.appendingPathExtension("unreadable")
        try? FileManager.default.removeItem(at: aside)
        return (try? FileManager.default.moveItem(at: file, to: aside)) != nil ? aside : nil
    }
}
