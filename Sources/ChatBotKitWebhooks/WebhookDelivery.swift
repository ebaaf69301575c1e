import ChatBotKit
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
/// let delivery = try WebhookDelivery(body: Data(bytes), headers: headers, apiKey: key, apiSecret: secret)
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
    public init(body: Data, headers: [String: String], apiKey: String, apiSecret: String, maximumSize: Int = 4 << 20) throws(WebhookError) {
        try self.init(body: body, headers: headers, apiKey: apiKey, signingKey: WebhookDelivery.signingKey(apiSecret), maximumSize: maximumSize)
    }

    /// The key the app's requests are signed with (made once per intake, not per request).
    static func signingKey(_ apiSecret: String) -> SymmetricKey { SymmetricKey(data: Data(apiSecret.utf8)) }

    init(body: Data, headers: [String: String], apiKey: String, signingKey: SymmetricKey, maximumSize: Int) throws(WebhookError) {
        let json = try WebhookDelivery.verifiedJSON(body: body, headers: headers, apiKey: apiKey, signingKey: signingKey, maximumSize: maximumSize)
        do {
            event = try Event.decode(frame: json)
        } catch {
            throw WebhookError(code: .notAnEvent, message: "the body is not an event: \(error)")
        }
        id = WebhookDelivery.header("x-webhook-id", in: headers)
        attempt = WebhookDelivery.header("x-webhook-attempt", in: headers).flatMap { Int($0) } ?? 1
    }

    /// The JSON of a request the service signed for app `apiKey`: its key and signature checked,
    /// inflated when gzipped. What webhook requests and custom command requests share.
    static func verifiedJSON(body: Data, headers: [String: String], apiKey: String, signingKey: SymmetricKey, maximumSize: Int) throws(WebhookError)
        -> Data
    {
        let header = { (name: String) in WebhookDelivery.header(name, in: headers) }
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
        guard WebhookDelivery.isSignature(signature, of: json, key: signingKey) else {
            throw WebhookError(
                code: .signatureMismatch,
                message: "X-Signature is not the body's HMAC-SHA256 with this app's secret; check that the intake has the secret of app \"\(apiKey)\"")
        }
        return json
    }

    /// The value of header `name` (lower case), whatever the case of its key, trimmed. Servers
    /// usually hand keys over in lower case (Hummingbird does), found at once; otherwise the
    /// keys are compared without allocating.
    static func header(_ name: String, in headers: [String: String]) -> String? {
        let value = headers[name] ?? headers.first { isSameName($0.key, name) }?.value
        guard let value, value.first?.isWhitespace == true || value.last?.isWhitespace == true else { return value }
        return value.trimmingCharacters(in: .whitespaces)
    }

    /// Whether `key` is `lowercased` in any case (ASCII, as header names are).
    private static func isSameName(_ key: String, _ lowercased: String) -> Bool {
        guard key.utf8.count == lowercased.utf8.count else { return false }
        return zip(key.utf8, lowercased.utf8).allSatisfy { byte, lower in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 == lower : byte == lower
        }
    }

    /// The JSON itself: the body, or what it inflates to.
    private static func inflate(_ body: Data, encoding: String?, maximumSize: Int) throws(WebhookError) -> Data {
        guard let encoding = encoding?.lowercased(), !encoding.isEmpty else { return body }
        switch encoding {
        case "identity":
            return body
        case "gzip", "x-gzip":
            var buffer = ByteBuffer(bytes: body)
            // The trailer's last four bytes say how long the JSON is: one buffer of that size (within
            // the limit) instead of one grown as it inflates.
            let declared = body.count >= 18 ? Int(Self.trailerLength(body)) : 0
            var inflated = ByteBuffer()
            do {
                if declared > 0, declared <= maximumSize {
                    inflated = ByteBufferAllocator().buffer(capacity: declared)
                    try buffer.decompress(to: &inflated, with: .gzip())
                } else {
                    inflated = try buffer.decompress(with: .gzip(), maxSize: maximumSize)
                }
            } catch let error as CompressNIOError where error == .bufferOverflow {
                throw WebhookError(code: .tooLarge, message: "the body inflates to more than the \(maximumSize) bytes this intake takes")
            } catch {
                throw WebhookError(code: .corruptGzip, message: "the body is said to be gzip (Content-Encoding: gzip) and is not: \(error)")
            }
            // zlib hands over what a cut stream held without a word; the trailer's last four
            // bytes are the length of what it holds (modulo 2^32), which a cut body does not match.
            guard body.count >= 18, Self.trailerLength(body) == UInt32(truncatingIfNeeded: inflated.readableBytes) else {
                throw WebhookError(code: .corruptGzip, message: "the gzip body is cut short: it does not end with the length of what it holds")
            }
            return Data(inflated.readableBytesView)
        default:
            throw WebhookError(
                code: .unsupportedEncoding,
                message: "Content-Encoding \"\(encoding)\" is not one the service uses; set the app's webhook_compression_algorithm to \"gzip\" or \"\"")
        }
    }

    /// The length a gzip stream's trailer gives (modulo 2^32): its last four bytes, little-endian.
    private static func trailerLength(_ body: Data) -> UInt32 {
        body.suffix(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    /// Whether `signature` (hex) is the HMAC-SHA256 of `json` with `key`, compared in constant time.
    static func isSignature(_ signature: String, of json: Data, key: SymmetricKey) -> Bool {
        guard let code = HexDigits.bytes(signature) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(code, authenticating: json, using: key)
    }
}
