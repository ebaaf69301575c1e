import ChatClient
import ChatLocking
import ChatModels
import Foundation

/// A bot's dead letters, one JSON object a line (`dead-letters/<bot>.jsonl`, beside its
/// checkpoints), and the requests to run some of them again (`<bot>.retry.jsonl` beside it,
/// written by `bots dead-letters retry` and taken by the running bot). Lines are appended, so a
/// crash loses at most the line being written; the file is rewritten only to drop letters.
public final class DeadLetterFile: Sendable {
    /// The dead letters.
    public let file: URL
    /// The letters to run again, until the bot takes them.
    public var retryFile: URL { file.deletingPathExtension().appendingPathExtension("retry.jsonl") }
    private let writing = Locked(())

    /// The dead letters kept in `file`.
    public init(file: URL) {
        self.file = file
    }

    /// The dead letters, oldest first (none when there is no file); throws a ``BotError``
    /// naming the line that is not a dead letter.
    public func letters() throws -> [DeadLetter] {
        try writing.withLock { _ in try Self.read(file) }
    }

    /// Adds a letter at the end.
    func append(_ letter: DeadLetter) throws {
        try writing.withLock { _ in try Self.append([letter], to: file) }
    }

    /// Removes the letters whose keys are in `keys` (all with nil) and returns them.
    @discardableResult
    public func drop(_ keys: Set<String>?) throws -> [DeadLetter] {
        try writing.withLock { _ in
            let all = try Self.read(file)
            let (dropped, kept) = (all.filter { keys?.contains($0.key) ?? true }, all.filter { !(keys?.contains($0.key) ?? true) })
            try StateFile.write(Self.lines(kept), to: file)
            return dropped
        }
    }

    /// Moves the letters whose keys are in `keys` (all with nil) to the retry file, where the
    /// running bot (or its next start) takes them; returns them.
    @discardableResult
    public func retry(_ keys: Set<String>?) throws -> [DeadLetter] {
        let letters = try drop(keys)
        try writing.withLock { _ in try Self.append(letters, to: retryFile) }
        return letters
    }

    /// Takes the letters asked to run again, leaving no request behind; none when there is none.
    func takeRetries() throws -> [DeadLetter] {
        try writing.withLock { _ in
            // Renamed first: `bots dead-letters retry`, another process, may append meanwhile,
            // and its lines then go to a new file instead of being removed unread.
            let taken = retryFile.appendingPathExtension("taken")
            guard (try? FileManager.default.moveItem(at: retryFile, to: taken)) != nil else { return [] }
            let letters = try Self.read(taken)
            try FileManager.default.removeItem(at: taken)
            return letters
        }
    }

    /// Checks the file at start: one that does not parse is moved aside (kept as
    /// `<file>.unreadable`), so that new letters go to a fresh file and the bot starts; returns
    /// the error and where the file went, or nil when it reads.
    func checkOrSetAside() -> (error: BotError, aside: URL?)? {
        writing.withLock { _ in
            do {
                _ = try Self.read(file)
                return nil
            } catch let error as BotError {
                return (error, StateFile.setAside(file))
            } catch {
                return (BotError(code: .deadLettersUnreadable, message: "\(error)"), StateFile.setAside(file))
            }
        }
    }

    private static func read(_ file: URL) throws -> [DeadLetter] {
        // Read through a file handle: FileManager.contents(atPath:) leaked its 4 KB read buffer
        // in this toolchain (AddressSanitizer, in DeadLetterTests' retry test).
        guard let handle = try? FileHandle(forReadingFrom: file) else { return [] }
        defer { try? handle.close() }
        let data = try handle.readToEnd() ?? Data()
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        var letters: [DeadLetter] = []
        for (index, line) in data.split(separator: UInt8(ascii: "\n")).enumerated() where !line.allSatisfy({ $0 == 32 }) {
            do {
                letters.append(try decoder.decode(DeadLetter.self, from: Data(line)))
            } catch {
                throw BotError(
                    code: .deadLettersUnreadable, message: "\(file.path):\(index + 1): not a dead letter (\(error)); fix or remove the line")
            }
        }
        return letters
    }

    private static func lines(_ letters: [DeadLetter]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = Data()
        for letter in letters {
            data.append(try encoder.encode(letter))
            data.append(UInt8(ascii: "\n"))
        }
        return data
    }

    private static func append(_ letters: [DeadLetter], to file: URL) throws {
        guard !letters.isEmpty else { return }
        let data = try lines(letters)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: file.path) { _ = FileManager.default.createFile(atPath: file.path, contents: nil) }
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: data)
    }
}
