import ChatBotKit
import ChatModels
import Foundation

/// One value of `bots.yaml` with where it came from, so every problem can name its line and
/// column. Kinds read their own options through it (`policy:` of a moderation bot, ...).
public struct ConfigNode: Sendable {
    /// The shape of a value.
    public enum Value: Sendable {
        /// A scalar, after `${VAR:-default}` substitution; `isPlain` when it was not quoted.
        case scalar(String, isPlain: Bool)
        /// A mapping, keys in order.
        case mapping([(key: ConfigNode, value: ConfigNode)])
        /// A sequence.
        case sequence([ConfigNode])
    }

    /// The value.
    public let value: Value
    /// The file it came from.
    public let file: String
    /// Line (from 1).
    public let line: Int
    /// Column (from 1).
    public let column: Int
    /// The path to it, for messages (`bots[1].policy.max_file_size`).
    public let path: String

    /// An error located at this node.
    public func error(_ code: ConfigurationError.Code, _ message: String) -> ConfigurationError {
        ConfigurationError(code: code, message: message, file: file, line: line, column: column)
    }

    // MARK: Mappings

    /// The members of a mapping (an error for anything else).
    public func mapping() throws(ConfigurationError) -> [(key: String, node: ConfigNode)] {
        guard case .mapping(let pairs) = value else { throw error(.wrongType, "\(path) must be a mapping (key: value lines), found \(kind)") }
        var result: [(key: String, node: ConfigNode)] = []
        for (key, node) in pairs {
            guard case .scalar(let name, _) = key.value else { throw key.error(.wrongType, "keys of \(path) must be plain words") }
            result.append((name, node))
        }
        return result
    }

    /// The member `key` of a mapping, if present.
    public subscript(key: String) -> ConfigNode? {
        guard case .mapping(let pairs) = value else { return nil }
        return pairs.last { if case .scalar(key, _) = $0.key.value { return true } else { return false } }?.value
    }

    /// Fails on any key not in `allowed`, naming it and the keys that are allowed.
    public func allowOnly(_ allowed: [String]) throws(ConfigurationError) {
        for (key, node) in try mapping() where !allowed.contains(key) {
            let hint = ConfigNode.closest(to: key, among: allowed, tolerance: 2).map { " (did you mean \"\($0)\"?)" } ?? ""
            throw ConfigurationError(
                code: .unknownKey, message: "unknown key \"\(key)\" in \(path)\(hint); allowed keys: \(allowed.joined(separator: ", "))",
                file: node.file, line: node.keyLine, column: node.keyColumn)
        }
    }

    /// The required member `key`. When it is missing but a key a letter or two from it is there
    /// (one per four letters of `key`, at most two: a short key's neighbours are often other
    /// words), the error points at that key: the misspelling is what the user has to change, and
    /// a kind that checks for unknown keys only after its required ones would not say so.
    public func required(_ key: String) throws(ConfigurationError) -> ConfigNode {
        if let node = self[key] { return node }
        if let present = ConfigNode.closest(to: key, among: memberNames, tolerance: min(2, key.count / 4)), let member = self[present] {
            throw ConfigurationError(
                code: .missingKey, message: "\(path) needs \"\(key)\"; is \"\(present)\" a misspelling of it?",
                file: member.file, line: member.keyLine, column: member.keyColumn)
        }
        throw error(.missingKey, "\(path) needs \"\(key)\"")
    }

    /// The plain keys of a mapping (none for anything else).
    var memberNames: [String] {
        guard case .mapping(let pairs) = value else { return [] }
        return pairs.compactMap { if case .scalar(let name, _) = $0.key.value { name } else { nil } }
    }

    // MARK: Scalars

    /// A string.
    public func string() throws(ConfigurationError) -> String {
        guard case .scalar(let text, _) = value else { throw error(.wrongType, "\(path) must be a string, found \(kind)") }
        return text
    }

    /// An integer.
    public func int() throws(ConfigurationError) -> Int {
        guard case .scalar(let text, _) = value, let number = Int(text) else {
            throw error(.wrongType, "\(path) must be a whole number, found \(describe)")
        }
        return number
    }

    /// A boolean (`true`/`false`, `yes`/`no`).
    public func bool() throws(ConfigurationError) -> Bool {
        guard case .scalar(let text, _) = value else { throw error(.wrongType, "\(path) must be true or false, found \(kind)") }
        switch text.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default: throw error(.wrongType, "\(path) must be true or false, found \(describe)")
        }
    }

    /// A duration like `2s`, `10m`, `14d`.
    public func duration() throws(ConfigurationError) -> Duration {
        guard let duration = DurationText.parse(try string()) else {
            throw error(.badValue, "\(path) must be a duration such as 30s, 10m or 14d, found \(describe)")
        }
        return duration
    }

    /// A user id: letters, digits, `-` and `_` (`user:` of a bot, `sender_limit.exempt`).
    public func userId() throws(ConfigurationError) -> String {
        let id = try string()
        guard ChannelId.isValidPart(id) else { throw error(.badValue, "user \"\(id)\" may only use letters, digits, '-' and '_'") }
        return id
    }

    /// A size like `25MB`, `512KB` or a number of bytes.
    public func byteSize() throws(ConfigurationError) -> Int64 {
        guard case .scalar(let text, _) = value, let size = ByteSizeText.parse(text) else {
            throw error(.badValue, "\(path) must be a size such as 25MB or 512KB, found \(describe)")
        }
        return size
    }

    /// A list of strings (a single string counts as a list of one).
    public func strings() throws(ConfigurationError) -> [String] {
        switch value {
        case .scalar(let text, _): return [text]
        case .sequence(let nodes):
            var result: [String] = []
            for node in nodes { result.append(try node.string()) }
            return result
        case .mapping: throw error(.wrongType, "\(path) must be a list, found a mapping")
        }
    }

    /// The elements of a sequence.
    public func sequence() throws(ConfigurationError) -> [ConfigNode] {
        guard case .sequence(let nodes) = value else { throw error(.wrongType, "\(path) must be a list, found \(kind)") }
        return nodes
    }

    var kind: String {
        switch value {
        case .scalar: "a value"
        case .mapping: "a mapping"
        case .sequence: "a list"
        }
    }

    var describe: String {
        if case .scalar(let text, _) = value { return "\"\(text)\"" }
        return kind
    }

    /// Where the key of this node was, for unknown-key errors (set by the parser).
    var keyLine: Int { keyMark?.line ?? line }
    var keyColumn: Int { keyMark?.column ?? column }
    var keyMark: (line: Int, column: Int)?

    init(value: Value, file: String, line: Int, column: Int, path: String, keyMark: (line: Int, column: Int)? = nil) {
        self.value = value
        self.file = file
        self.line = line
        self.column = column
        self.path = path
        self.keyMark = keyMark
    }

    /// The one of `candidates` fewest edits from `key`, if it is at most `tolerance` edits away:
    /// the guess behind "did you mean" and "is it a misspelling".
    static func closest(to key: String, among candidates: [String], tolerance: Int) -> String? {
        guard let nearest = candidates.min(by: { distance($0, key) < distance($1, key) }), distance(nearest, key) <= tolerance else { return nil }
        return nearest
    }

    /// Edit distance, for "did you mean" hints.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
