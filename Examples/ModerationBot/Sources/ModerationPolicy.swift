import ChatBotKitConfiguration
import ChatBotKit
import ChatModels
import Foundation

/// A channel's file policy, from `policy:` in `bots.yaml`.
public struct ModerationPolicy: Sendable, Hashable {
    /// What happens to a file that breaks the policy.
    public enum Action: String, Sendable, CaseIterable {
        /// Delete the message and the file from the CDN, and tell the sender why.
        case deleteAndNotify = "delete_and_notify"
        /// Flag the message for moderators.
        case flag
        /// Only tell the sender.
        case notify
    }

    /// When files are judged.
    public enum Check: String, Sendable, CaseIterable {
        /// Once posted (the bot hears the message like everyone else, and removes it).
        case afterPosting = "after_posting"
        /// Before anyone sees them, through the app's Before Message Send webhook: a refused
        /// message is never stored, and its sender is told why in its place.
        case beforeSend = "before_send"
    }

    /// Only these extensions (with their dot), when not empty.
    public var allowedExtensions: [String] = []
    /// These extensions are refused.
    public var blockedExtensions: [String] = []
    /// Only these MIME types (`image/*` wildcards), when not empty.
    public var allowedMimeTypes: [String] = []
    /// These MIME types are refused.
    public var blockedMimeTypes: [String] = []
    /// The largest file in bytes.
    public var maximumFileSize: Int64?
    /// Judge files by their bytes (libmagic), not only by their name.
    public var sniffContent = false
    /// What to do about a violation.
    public var action: Action = .deleteAndNotify
    /// When files are judged: after posting (the default) or before sending.
    public var check: Check = .afterPosting
    /// Ban a sender from the channel at this many files against the policy (and at each one
    /// after), when set. Needs an action that posts notices: they are what is counted.
    public var banAfter: Int?
    /// How long such a ban lasts; nil: until a moderator lifts it.
    public var banDuration: Duration?
    /// Whether such a ban also deletes the sender's messages in the channel, and how (soft
    /// deletions can be undone by a moderator); nil keeps them.
    public var banDeletesMessages: MessageDeletionMode?

    /// A policy.
    public init(
        allowedExtensions: [String] = [], blockedExtensions: [String] = [], allowedMimeTypes: [String] = [], blockedMimeTypes: [String] = [],
        maximumFileSize: Int64? = nil, sniffContent: Bool = false, action: Action = .deleteAndNotify, banAfter: Int? = nil,
        banDuration: Duration? = nil, banDeletesMessages: MessageDeletionMode? = nil, check: Check = .afterPosting
    ) {
        self.check = check
        self.banDeletesMessages = banDeletesMessages
        self.allowedExtensions = allowedExtensions
        self.blockedExtensions = blockedExtensions
        self.allowedMimeTypes = allowedMimeTypes
        self.blockedMimeTypes = blockedMimeTypes
        self.maximumFileSize = maximumFileSize
        self.sniffContent = sniffContent
        self.action = action
        self.banAfter = banAfter
        self.banDuration = banDuration
    }

    static let keys = [
        "allowed_file_extensions", "blocked_file_extensions", "allowed_mime_types", "blocked_mime_types", "max_file_size", "sniff_content",
        "action", "ban_after", "ban_for", "ban_deletes_messages", "check",
    ]

    /// Reads a `policy:` mapping; unknown keys and bad values are located errors.
    public init(node: ConfigNode) throws(ConfigurationError) {
        try node.allowOnly(ModerationPolicy.keys)
        for key in ["allowed_file_extensions", "blocked_file_extensions"] {
            guard let list = node[key] else { continue }
            let extensions = try list.strings().map { $0.lowercased() }
            if let bad = extensions.first(where: { !$0.hasPrefix(".") }) {
                throw list.error(.badValue, "\(list.path) lists \"\(bad)\"; extensions start with a dot: \".\(bad)\"")
            }
            if key.hasPrefix("allowed") { allowedExtensions = extensions } else { blockedExtensions = extensions }
        }
        for key in ["allowed_mime_types", "blocked_mime_types"] {
            guard let list = node[key] else { continue }
            let types = try list.strings().map { $0.lowercased() }
            if let bad = types.first(where: { !$0.contains("/") }) {
                throw list.error(.badValue, "\(list.path) lists \"\(bad)\", which is not a MIME type such as image/png or image/*")
            }
            if key.hasPrefix("allowed") { allowedMimeTypes = types } else { blockedMimeTypes = types }
        }
        if let size = node["max_file_size"] { maximumFileSize = try size.byteSize() }
        if let sniff = node["sniff_content"] { sniffContent = try sniff.bool() }
        if let actionNode = node["action"] {
            let text = try actionNode.string()
            guard let parsed = Action(rawValue: text) else {
                throw actionNode.error(
                    .badValue, "action \"\(text)\" is not one of \(Action.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            action = parsed
        }
        if let checkNode = node["check"] {
            let text = try checkNode.string()
            guard let parsed = Check(rawValue: text) else {
                throw checkNode.error(.badValue, "check \"\(text)\" is not one of \(Check.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            // Refusing before sending is what before_send is for; a flag or a notice needs the message posted.
            guard parsed == .afterPosting || action == .deleteAndNotify else {
                throw checkNode.error(
                    .badValue,
                    "check: before_send refuses a file before anyone sees it, which is action: delete_and_notify; with action: \(action.rawValue) the file is posted, so leave check out")
            }
            check = parsed
        }
        try readBan(node)
    }

    /// `ban_after` (a count of files), `ban_for` (a duration, or until lifted when absent) and
    /// `ban_deletes_messages` (`soft` or `hard`).
    private mutating func readBan(_ node: ConfigNode) throws(ConfigurationError) {
        if let countNode = node["ban_after"] {
            let count = try countNode.int()
            guard count >= 1 else { throw countNode.error(.badValue, "\(countNode.path) must be 1 or more, found \(count)") }
            guard action != .flag else {
                throw countNode.error(
                    .badValue, "\(countNode.path) counts the moderator's notices, and action: flag posts none; use notify or delete_and_notify")
            }
            banAfter = count
        }
        // The ban's other settings mean nothing without the count that earns it.
        for key in ["ban_for", "ban_deletes_messages"] where banAfter == nil {
            if let orphan = node[key] { throw orphan.error(.badValue, "\(orphan.path) needs ban_after, the number of files that earns a ban") }
        }
        if let durationNode = node["ban_for"] { banDuration = try durationNode.duration() }
        if let deletionNode = node["ban_deletes_messages"] {
            let text = try deletionNode.string()
            guard let mode = MessageDeletionMode(rawValue: text) else {
                throw deletionNode.error(
                    .badValue, "\(deletionNode.path) must be soft (a moderator can undelete them) or hard (for good), found \"\(text)\"")
            }
            banDeletesMessages = mode
        }
    }

    /// MIME types of programs: caught whatever name they carry, unless explicitly allowed.
    static let executableTypes: Set<String> = [
        "application/x-executable", "application/x-pie-executable", "application/x-sharedlib", "application/x-dosexec",
        "application/x-msdownload", "application/vnd.microsoft.portable-executable", "application/x-mach-binary",
        "application/x-elf", "text/x-shellscript", "application/x-sh", "application/x-bat", "application/java-archive",
    ]

    /// Why a file breaks the policy, or nil. `sniffedMimeType` is what libmagic read from the bytes.
    public func violation(name: String, declaredMimeType: String?, size: Int64?, sniffedMimeType: String? = nil) -> String? {
        let fileExtension = URL(fileURLWithPath: name).pathExtension.isEmpty ? "" : "." + URL(fileURLWithPath: name).pathExtension.lowercased()
        let declared = MIMEType.essence(of: declaredMimeType ?? MIMEType.guess(forPathExtension: fileExtension))
        if let size, let maximumFileSize, size > maximumFileSize {
            return "it is \(ModerationPolicy.readable(size)), over the \(ModerationPolicy.readable(maximumFileSize)) limit"
        }
        if blockedExtensions.contains(fileExtension) { return "\(fileExtension) files are not allowed here" }
        if !allowedExtensions.isEmpty, !allowedExtensions.contains(fileExtension) {
            return "only \(allowedExtensions.joined(separator: ", ")) files are allowed here"
        }
        if blockedMimeTypes.contains(where: { MIMEType.matches(declared, pattern: $0) }) { return "\(declared) files are not allowed here" }
        if let sniffedMimeType {
            let real = MIMEType.essence(of: sniffedMimeType)
            if blockedMimeTypes.contains(where: { MIMEType.matches(real, pattern: $0) }) {
                return "it is really \(real), which is not allowed here"
            }
            let explicitlyAllowed = allowedMimeTypes.contains { $0 == real }
            if ModerationPolicy.executableTypes.contains(real), !explicitlyAllowed {
                return "it is really an executable program (\(real)), not the \(declared) its name says"
            }
            if !ModerationPolicy.sameKind(real, declared) {
                return "its content is \(real), not the \(declared) its name says"
            }
            if !allowedMimeTypes.isEmpty, !allowedMimeTypes.contains(where: { MIMEType.matches(real, pattern: $0) }),
                !(ModerationPolicy.isGeneric(real) && allowedMimeTypes.contains(where: { MIMEType.matches(declared, pattern: $0) }))
            {
                return "\(real) files are not allowed here; allowed: \(allowedMimeTypes.joined(separator: ", "))"
            }
            return nil
        }
        if !allowedMimeTypes.isEmpty, !allowedMimeTypes.contains(where: { MIMEType.matches(declared, pattern: $0) }) {
            return "\(declared) files are not allowed here; allowed: \(allowedMimeTypes.joined(separator: ", "))"
        }
        return nil
    }

    /// Sniffers answer generic types for plain text and unknown binary data.
    static func isGeneric(_ type: String) -> Bool {
        type == "text/plain" || type == "application/octet-stream"
    }

    /// Types whose files start with a signature libmagic knows: a real one is never sniffed as
    /// generic data, so a generic answer means the name lies (garbage or a program named .png).
    static func hasSignature(_ type: String) -> Bool {
        if type == "image/svg+xml" { return false }
        let family = type.split(separator: "/").first ?? ""
        if family == "image" || family == "audio" || family == "video" { return true }
        return ["application/pdf", "application/zip", "application/gzip", "application/x-7z-compressed", "application/vnd.rar"]
            .contains(type)
    }

    /// Whether the real type fits the declared one: same type, both text, or a generic answer
    /// for a type that has no signature to find.
    static func sameKind(_ real: String, _ declared: String) -> Bool {
        if real == declared || declared == "application/octet-stream" { return true }
        if real == "application/octet-stream" { return !hasSignature(declared) }
        let realFamily = real.split(separator: "/").first ?? ""
        let declaredFamily = declared.split(separator: "/").first ?? ""
        if realFamily == "text", declaredFamily == "text" { return true }
        // Text formats some systems file under application/ (JSON, XML, CSV as text/plain).
        let textual: Set<String> = ["application/json", "application/xml", "application/gpx+xml", "image/svg+xml", "text/xml"]
        if realFamily == "text", textual.contains(declared) { return true }
        if textual.contains(real), textual.contains(declared) || declaredFamily == "text" { return true }
        // Container formats: a .docx is a zip, an .apk is a jar is a zip.
        if real == "application/zip", declared.contains("openxmlformats") || declared.contains("zip") || declared.contains("epub") { return true }
        return realFamily == declaredFamily && realFamily != "application"
    }

    static func readable(_ bytes: Int64) -> String {
        if bytes >= 1_048_576 { return String(format: "%.1f MB", Double(bytes) / 1_048_576) }
        if bytes >= 1024 { return String(format: "%.1f KB", Double(bytes) / 1024) }
        return "\(bytes) bytes"
    }
}
