import Foundation

/// A new, empty folder of its own under the system's temporary folder, removed with all it
/// holds when the value goes away.
///
/// Keep the value for as long as the folder is used (a `let` in the test does):
///
/// ```swift
/// let scratch = try ScratchFolder()
/// let report = try scratch.file("report.pdf", bytes: 2_000)
/// let copy = scratch.path("copy.pdf")
/// ```
public final class ScratchFolder: Sendable {
    /// The folder.
    public let url: URL

    /// Makes the folder; its name starts with `label`, so that a folder left behind by a
    /// crashed test says what made it.
    public init(_ label: String = "chatbotkit") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// Where `name` (a file or folder name, or a relative path) is in the folder; nothing is
    /// written.
    public func path(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }

    /// Writes `data` as `name` in the folder and returns its URL.
    @discardableResult
    public func write(_ data: Data, as name: String) throws -> URL {
        let file = path(name)
        try data.write(to: file)
        return file
    }

    /// Writes `count` bytes of a fixed pattern as `name` and returns its URL: the same bytes for
    /// the same size each time, and no recognisable format, except that a `.png` file begins
    /// with PNG's signature, so that whatever checks an image's first bytes takes it for one.
    @discardableResult
    public func file(_ name: String, bytes count: Int) throws -> URL {
        var content = [UInt8](repeating: 0, count: count)
        for index in 0..<count { content[index] = UInt8(truncatingIfNeeded: index &* 131 &+ 7) }
        if name.hasSuffix(".png"), count >= 8 { content.replaceSubrange(0..<8, with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) }
        return try write(Data(content), as: name)
    }
}
