import ChatModels
import Foundation

/// The app's push webhook, as `PATCH /app` sets it: `webhook_url` (empty: none),
/// `webhook_events` (the event types posted; empty: every type) and
/// `webhook_compression_algorithm` (`gzip`, or empty for none).
struct WebhookSettings: Sendable, Equatable {
    /// Where events are posted.
    var url: URL
    /// The event types posted; empty for all but typing indicators, which change too often to be
    /// worth a request each (name them to have them).
    var events: Set<String>
    /// Whether bodies are gzipped (`Content-Encoding: gzip`); the signature is of the JSON itself.
    var gzips: Bool

    /// The settings among the app's others; nil when no `webhook_url` is set.
    init?(_ settings: JSONObject) {
        guard let text = settings["webhook_url"]?.stringValue, !text.isEmpty, let url = URL(string: text) else { return nil }
        self.url = url
        events = Set((settings["webhook_events"]?.arrayValue ?? []).compactMap(\.stringValue))
        gzips = settings["webhook_compression_algorithm"]?.stringValue == "gzip"
    }

    /// Whether an event of `type` is posted.
    func posts(_ type: String) -> Bool { events.isEmpty ? !type.hasPrefix("typing.") : events.contains(type) }

    /// Refuses a value the service would refuse, naming the setting and what it takes.
    static func check(_ key: String, _ value: RawJSON) throws(APIError) {
        switch key {
        case "webhook_url":
            guard let text = value.stringValue else { throw .input("UpdateApp", "webhook_url must be a string (an empty one turns the webhook off)") }
            guard text.isEmpty || isPostable(text) else {
                throw .input("UpdateApp", "webhook_url \"\(text)\" must be an http or https URL with a host, such as https://bots.example.com/webhook")
            }
        case "webhook_events":
            guard case .array(let types) = value, types.allSatisfy({ $0.stringValue?.isEmpty == false }) else {
                throw .input("UpdateApp", "webhook_events must be an array of event types, such as [\"message.new\"] (empty for every type)")
            }
        default:
            guard let algorithm = value.stringValue, algorithm.isEmpty || algorithm == "gzip" else {
                throw .input(
                    "UpdateApp", "webhook_compression_algorithm must be \"gzip\" or \"\" (no compression), found \(JSONWriter.string(value))")
            }
        }
    }

    static func isPostable(_ text: String) -> Bool {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else { return false }
        return (scheme == "http" || scheme == "https") && !(components.host ?? "").isEmpty
    }
}
