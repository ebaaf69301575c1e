import Foundation

/// What is done with a state file (a checkpoint, an upload record) that cannot be read.
package enum UnreadableFile {
    /// Moves `file` out of the way as `<file>.unreadable` (replacing an older one there), so a
    /// fresh file can be written and the bad one is still there to look at; the new location,
    /// or nil when it could not be moved.
    package static func setAside(_ file: URL) -> URL? {
        let aside = file.appendingPathExtension("unreadable")
        try? FileManager.default.removeItem(at: aside)
        return (try? FileManager.default.moveItem(at: file, to: aside)) != nil ? aside : nil
    }
}
