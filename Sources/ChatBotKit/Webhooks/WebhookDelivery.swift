import ChatModels
import CompressNIO
import Crypto
import Foundation
import NIOCore

/// One request the service posted to the app's webhook, checked and read: its body inflated
/// when gzipped (`Content-Encoding: gzip`), its `X-Signature` checked against the HMAC-SHA256 of
/// the JSON with the app's secret (in constant time), its `X-Api-Key` against the app's key,
/// and the event decoded.
///
/// For a webhook route of your own (Vapor, Hummingbird, …):
/// ```swift
/// let delivery = try WebhookDelivery(body: bytes, headers: headers, apiKey: key, apiSecret: secret)
/// ```
/// ``WebhookIntake`` does this for bots, and ``WebhookServer`` serves it.
public struct WebhookDelivery: Sendable {
    /// `X-Webhook-Id`: the same on every attempt at one event, so a retry is recognised; nil
    /// when the sender gave none.
    public let id: String?
    /// `X-Webhook-Attempt`: 1 for the first attempt.
    public let attempt: Int
    /// The event.
    public let event: Event

    /// Reads a request. `headers` are looked up without regard to case; `maximumSize` bounds
    /// the body both as sent and inflated (a small gzip can inflate to gigabytes).
    public init(
        body: some Collection<UInt8>, headers: [String: String], apiKey: String, apiSecret: String, maximumSize: Int = 4 << 20
    ) throws(WebhookError) {
        let header = WebhookDelivery.lookup(headers)
        if let sentKey = header("x-api-key"), sentKey != apiKey {
            throw WebhookError(
                code: .apiKeyMismatch,
                message: "the request is for app \"\(sentKey)\", not \"\(apiKey)\"; point that app's webhook_url elsewhere, or give this intake its key and secret")
        }
        guard let signature = header("x-signature") else {
            throw WebhookError(
                code: .signatureMissing, message: "the request has no X-Signature header; only the service's webhook requests are taken")
        }
        guard body.count <= maximumSize else {
            throw WebhookError(code: .tooLarge, message: "the body is \(body.count) bytes, more than the \(maximumSize) this intake takes")
        }
        let json = try WebhookDelivery.inflate(body, encoding: header("content-encoding"), maximumSize: maximumSize)
        guard WebhookDelivery.isSignature(signature, of: json, secret: apiSecret) else {
            throw WebhookError(
                code: .signatureMismatch,
                message: "X-Signature is not the body's HMAC-SHA256 with this app's secret; check that the intake has the secret of app \"\(apiKey)\"")
        }
        do {
            event = try Event.decode(frame: Data(json))
        } catch {
            throw WebhookError(code: .notAnEvent, message: "the body is not an event: \(error)")
        }
        id = header("x-webhook-id")
        attempt = header("x-webhook-attempt").flatMap { Int($0) } ?? 1
    }

    /// A case-insensitive, trimmed lookup of `headers`.
    private static func lookup(_ headers: [String: String]) -> (String) -> String? {
        let lowered = Dictionary(headers.map { ($0.key.lowercased(), $0.value.trimmingCharacters(in: .whitespaces)) }, uniquingKeysWith: { first, _ in first })
        return { lowered[$0] }
    }

    /// The JSON itself: the body, or what it inflates to.
    private static func inflate(_ body: some Collection<UInt8>, encoding: String?, maximumSize: Int) throws(WebhookError) -> [UInt8] {
        let encoding = encoding?.lowercased() ?? ""
        switch encoding {
        case "", "identity":
            return Array(body)
        case "gzip", "x-gzip":
            var buffer = ByteBuffer(bytes: body)
            let inflated: [UInt8]
            do {
                inflated = Array(try buffer.decompress(with: .gzip(), maxSize: maximumSize).readableBytesView)
            } catch let error as CompressNIOError where error == .bufferOverflow {
                throw WebhookError(code: .tooLarge, message: "the body inflates to more than the \(maximumSize) bytes this intake takes")
            } catch {
                throw WebhookError(code: .corruptGzip, message: "the body is said to be gzip (Content-Encoding: gzip) and is not: \(error)")
            }
            // zlib hands over what a cut stream held without a word; the trailer's last four
            // bytes are the length of what it holds (modulo 2^32), which a cut body does not match.
            let trailer = body.suffix(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard body.count >= 18, trailer == UInt32(truncatingIfNeeded: inflated.count) else {
                throw WebhookError(code: .corruptGzip, message: "the gzip body is cut short: it does not end with the length of what it holds")
            }
            return inflated
        default:
            throw WebhookError(
                code: .unsupportedEncoding,
                message: "Content-Encoding \"\(encoding)\" is not one the service uses; set the app's webhook_compression_algorithm to \"gzip\" or \"\"")
        }
    }

    /// Whether `signature` (hex) is the HMAC-SHA256 of `json` with `secret`, compared in constant time.
    static func isSignature(_ signature: String, of json: [UInt8], secret: String) -> Bool {
        guard let code = hexBytes(signature) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(code, authenticating: json, using: SymmetricKey(data: Data(secret.utf8)))
    }

    /// The bytes of a hex string; nil when it is not one.
    private static func hexBytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0, !digits.isEmpty else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
