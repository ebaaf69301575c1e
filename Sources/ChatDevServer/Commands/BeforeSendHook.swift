import ChatLocking
import ChatModels
import Foundation
import Logging

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The app's Before Message Send webhook (`before_message_send_hook_url`): each new message is
/// posted there before it is stored, and the answer lets it through, rewrites it or refuses it.
///
/// What Stream's "Before Message Send Webhook" page says, and this follows:
/// - the body is `{"message", "user", "channel", "request_info"}`, signed as every webhook is
///   (`X-Signature`: hex HMAC-SHA256 of the body with the API secret);
/// - one attempt ("the send-message path still uses a single attempt; this does not enable
///   retries"), of `before_message_send_hook_attempt_timeout_ms` (0 or unset: 1,500 ms; 1 to
///   5,000 accepted, anything else refused);
/// - `{"message": {"type": "error", "text": …}}` with HTTP 200 refuses the message, and the
///   sender is answered that message; `{"message": {…}}` otherwise overwrites the rewritable
///   fields (text, i18n, show_in_channel, silent, type, attachments, custom fields);
/// - "If your endpoint is unavailable (for example HTTP 4xx or 5xx) or too slow, Stream fails
///   open for this hook: processing continues and the message is stored as usual unless your
///   handler returns a structured rejection."
///
/// The page does not say what an answer that is not JSON gets; it is no structured rejection,
/// so it fails open too. An empty 2xx body asks for no change (the page asks for a body only
/// "if you intend to make any change"). The page's pausing of an unreachable hook is not
/// modelled: its thresholds are not documented, and each message fails open either way.
struct BeforeSendHook: Sendable {
    /// What the hook's answer does to the message.
    enum Verdict: Sendable, Equatable {
        /// Stored as sent.
        case pass
        /// Stored with these fields of the answer's message (the rewritable ones are taken).
        case rewrite(JSONObject)
        /// Not stored; the sender is answered an `error` message with this text.
        case reject(String)
        /// The hook failed (why, for the log); the message is stored as sent.
        case failed(String)
    }

    /// The per-attempt timeout when the app sets none (or 0).
    static let defaultAttemptTimeout = Duration.milliseconds(1_500)
    /// The largest `before_message_send_hook_attempt_timeout_ms` the service takes.
    static let maximumAttemptTimeoutMilliseconds = 5_000

    let url: URL
    let attemptTimeout: Duration
    let apiKey: String
    let signer: PayloadSigner
    let logger: Logger

    /// The hook of the app whose settings are `settings`; nil while no URL is set.
    init?(_ settings: JSONObject, apiKey: String, signer: PayloadSigner, logger: Logger) {
        guard let text = settings["before_message_send_hook_url"]?.stringValue, !text.isEmpty, let url = URL(string: text) else { return nil }
        self.url = url
        let milliseconds = settings["before_message_send_hook_attempt_timeout_ms"]?.intValue ?? 0
        attemptTimeout = milliseconds > 0 ? .milliseconds(milliseconds) : Self.defaultAttemptTimeout
        self.apiKey = apiKey
        self.signer = signer
        self.logger = logger
    }

    /// Refuses a value the service would refuse, naming the setting and what it takes.
    static func check(_ key: String, _ value: RawJSON) throws(APIError) {
        if key == "before_message_send_hook_url" {
            guard let text = value.stringValue else {
                throw .input("UpdateApp", "before_message_send_hook_url must be a string (an empty one turns the hook off)")
            }
            guard text.isEmpty || WebhookSettings.isPostable(text) else {
                throw .input(
                    "UpdateApp",
                    "before_message_send_hook_url \"\(text)\" must be an http or https URL with a host, such as https://bots.example.com/before-send")
            }
            return
        }
        // "The API rejects negative values and values greater than 5000 with an error."
        guard let milliseconds = value.intValue, (0...maximumAttemptTimeoutMilliseconds).contains(milliseconds)
        else {
            throw .input(
                "UpdateApp",
                "before_message_send_hook_attempt_timeout_ms must be a whole number of milliseconds from 0 (the default, 1500) to 5000, found \(JSONWriter.string(value))")
        }
    }

    /// Posts `body` (signed, one attempt) and reads the answer; gives up at ``attemptTimeout``.
    func call(_ body: JSONObject) async -> Verdict {
        let json = JSONWriter.data(.object(body))
        var built = URLRequest.signedPost(to: url, json: json, apiKey: apiKey, signature: signer.signature(of: json), timeout: attemptTimeout)
        built.setValue(UUID().uuidString.lowercased(), forHTTPHeaderField: "X-Webhook-Id")
        built.setValue("1", forHTTPHeaderField: "X-Webhook-Attempt")
        built.setValue("chatbotkit-dev-webhook", forHTTPHeaderField: "User-Agent")
        let request = built
        let timeout = attemptTimeout
        let answered: (data: Data, status: Int)?
        do {
            // URLSession's timeout is an idle one; the attempt's is a deadline.
            answered = try await withDeadline(timeout) {
                let (data, response) = try await URLSession.shared.data(for: request)
                return (data, (response as? HTTPURLResponse)?.statusCode ?? 0)
            } onTimeout: {
                nil
            }
        } catch {
            return failed("could not be reached: \(error.localizedDescription)")
        }
        guard let (data, status) = answered else { return failed("did not answer within \(Self.milliseconds(timeout)) ms") }
        guard (200..<300).contains(status) else { return failed("answered HTTP \(status)") }
        let verdict = Self.verdict(data)
        if case .failed(let reason) = verdict { return failed(reason) }
        return verdict
    }

    private func failed(_ reason: String) -> Verdict {
        logger.warning("The before-send hook at \(url.absoluteString) \(reason); the message is stored as sent (the hook fails open)")
        return .failed(reason)
    }

    /// Reads a 2xx answer: nothing or `{}` passes, `{"message": {...}}` rewrites or refuses.
    static func verdict(_ data: Data) -> Verdict {
        if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return .pass }
        guard let parsed = try? JSONParser().parse(data), case .object(let object) = parsed else {
            return .failed("answered something other than a JSON object (\(data.count) bytes)")
        }
        guard let message = object["message"], !message.isNull else { return .pass }
        guard case .object(let fields) = message else { return .failed("answered a message that is not an object") }
        if fields["type"]?.stringValue == "error" {
            return .reject(fields["text"]?.stringValue ?? "This message was refused.")
        }
        return .rewrite(fields)
    }

    /// `data` with the rewritable fields of the hook's answer: "Any non-custom field that is not
    /// listed here will be ignored". A null leaves the field as it was.
    static func rewritten(_ data: JSONObject, by fields: JSONObject) -> JSONObject {
        let listed: Set<String> = ["text", "i18n", "show_in_channel", "silent", "attachments"]
        var result = data
        for (key, value) in fields where !value.isNull {
            if listed.contains(key) || !Message.isServerOwned(key) && !MessageRoutes.serverOwnedKeys.contains(key) { result[key] = value }
        }
        return result
    }

    static func milliseconds(_ duration: Duration) -> Int { Int((duration.seconds * 1000).rounded()) }
}
