import ChatModels
import Foundation

/// Events recorded one JSON object per line, as `bots events --json` prints them, to be
/// replayed later (``ReplayPlan``). Every line is read before anything is replayed, so a
/// capture with a bad line is refused whole, with the line and the reason.
public struct EventCapture: Sendable {
    /// One recorded event and the line it came from (1-based).
    public struct Line: Sendable {
        /// The line's number in the capture.
        public var number: Int
        /// The event.
        public var event: Event
    }

    /// The events, in the order they were recorded.
    public var lines: [Line]
    /// Where the capture came from, for messages (a path).
    public var source: String

    /// The capture in `text`; blank lines are allowed, anything else must be an event object.
    public init(text: String, source: String = "capture") throws(ChatClientError) {
        self.source = source
        lines = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { continue }
            let number = index + 1
            let json: RawJSON
            do {
                json = try JSONParser().parse(Data(trimmed.utf8))
            } catch {
                throw Self.error(source, number, "not JSON: \(error.message)" + (error.offset.map { " at byte \($0)" } ?? ""))
            }
            guard case .object(let object) = json, let type = object["type"]?.stringValue, !type.isEmpty else {
                throw Self.error(source, number, "not an event: an event is a JSON object with a \"type\", one per line, as `bots events --json` prints")
            }
            do {
                lines.append(Line(number: number, event: try Event(jsonData: Data(trimmed.utf8))))
            } catch {
                throw Self.error(source, number, "not an event: \(error.message)")
            }
        }
    }

    /// The capture in the file at `url`.
    public init(contentsOf url: URL) throws(ChatClientError) {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw ChatClientError(code: .invalidCapture, message: "cannot read \(url.path): \(error.localizedDescription)")
        }
        try self.init(text: text, source: url.path)
    }

    static func error(_ source: String, _ line: Int, _ reason: String) -> ChatClientError {
        ChatClientError(code: .invalidCapture, message: "\(source):\(line): \(reason); nothing was replayed")
    }
}
