import ChatModels
import ChatTransport
import Foundation

/// A file's SHA-256, read in 1 MiB chunks so a large file costs no more memory than a small one.
public enum FileDigest {
    /// The SHA-256 of the file at `file`, as 64 lowercase hex digits.
    public static func sha256(of file: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var hasher = SHA256Hasher()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(chunk) }
        return HexDigits.string(hasher.finalize())
    }
}
