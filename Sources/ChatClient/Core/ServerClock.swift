import ChatTransport
import Foundation

/// How far the server's clock is from this machine's, read from the `Date` header of one of
/// its answers. Signed links expire by the server's clock but are refreshed by this one's
/// (``ChatClientConfiguration/linkRefreshMargin`` before they expire), so a clock behind by more
/// than that margin makes a bot use links that have already expired.
public struct ServerClock: Sendable, Equatable, CustomStringConvertible {
    /// The server's time minus this machine's: positive when this clock is behind.
    public var offset: Duration
    /// How far the true offset may be from ``offset``: a second and a half (the header has
    /// whole seconds, and some servers, Hummingbird's among them, renew it once a second) plus
    /// half the round trip.
    public var uncertainty: Duration

    /// The offset of a server whose answer said `serverDate` to a request sent at `sentAt` (by
    /// this clock) that took `roundTrip`. The header truncates to the second, so the server's
    /// time was in `[serverDate, serverDate + 1 s)`: the middle of that is compared with the
    /// middle of the round trip.
    public init(serverDate: Date, sentAt: Date, roundTrip: Duration) {
        let localMidpoint = sentAt.addingTimeInterval(roundTrip.timeInterval / 2)
        offset = .seconds(serverDate.addingTimeInterval(0.5).timeIntervalSince(localMidpoint))
        uncertainty = .milliseconds(1500) + roundTrip / 2
    }

    /// Whether this clock is off by more than `limit` whatever the uncertainty.
    public func isOff(byMoreThan limit: Duration) -> Bool {
        (offset < .zero ? .zero - offset : offset) - uncertainty > limit
    }

    /// The offset in words: `3.2 s behind the server's (±0.5 s)`.
    public var description: String {
        let seconds = abs(offset.timeInterval)
        return String(format: "%.1f s %@ the server's (±%.1f s)", seconds, offset > .zero ? "behind" : "ahead of", uncertainty.timeInterval)
    }

    /// An HTTP date (`Wed, 25 Nov 2026 04:52:40 GMT`, RFC 9110's preferred form); nil for
    /// anything else.
    public static func parseHTTPDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text.trimmingCharacters(in: .whitespaces))
    }
}

extension ChatClient {
    /// Reads the server's clock from the `Date` header of `GET /app` (which also checks the
    /// credentials: a refused key throws the server's error).
    public func serverClock() async throws -> ServerClock {
        let request = try transportRequest(for: .get("/app", operation: "GetApp"))
        let sentAt = Date()
        let start = ContinuousClock.now
        let response: TransportResponse
        do {
            response = try await timedSend(request, operation: "GetApp")
        } catch let error as TransportError {
            throw ChatClientError(code: .transport, message: "GetApp: \(error.message)", transportError: error)
        }
        let roundTrip = ContinuousClock.now - start
        _ = try ChatClient.decode(response, operation: "GetApp")
        guard let header = response.headers.first(where: { $0.name == "date" })?.value, let serverDate = ServerClock.parseHTTPDate(header) else {
            throw ChatClientError(code: .invalidResponse, message: "GET /app answered without a Date header, so the server's clock cannot be read")
        }
        return ServerClock(serverDate: serverDate, sentAt: sentAt, roundTrip: roundTrip)
    }
}
