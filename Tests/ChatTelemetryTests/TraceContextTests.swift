import ChatTelemetry
import Testing

@Suite("W3C traceparent headers: read strictly, written as version 00")
struct TraceContextTests {
    static let header = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    @Test("a valid header gives its ids and flag, and is written back unchanged")
    func roundTrip() throws {
        let context = try #require(TraceContext(traceparent: Self.header, tracestate: " congo=t61rcWkgMzE "))
        #expect(context.traceID.description == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(context.spanID.description == "00f067aa0ba902b7")
        #expect(context.isSampled)
        #expect(context.isRemote)
        #expect(context.traceState == "congo=t61rcWkgMzE")
        #expect(context.traceparent == Self.header)
        let unsampled = try #require(TraceContext(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"))
        #expect(!unsampled.isSampled)
        // Bits other than `sampled` are kept out of our decision but do not make the header bad.
        #expect(TraceContext(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03")?.isSampled == true)
    }

    @Test("a later version's extra fields are skipped, as the recommendation asks")
    func laterVersion() throws {
        let context = try #require(TraceContext(traceparent: "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-the-future-holds"))
        #expect(context.traceparent == Self.header, "we answer in the version we speak")
    }

    @Test(
        "a header that breaks the format is ignored (nil), whatever is wrong with it",
        arguments: [
            ("uppercase hex", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01"),
            ("an all-zero trace id", "00-00000000000000000000000000000000-00f067aa0ba902b7-01"),
            ("an all-zero span id", "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"),
            ("version ff", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
            ("version 00 with a fifth field", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra"),
            ("a later version glued on without a dash", "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x"),
            ("a short trace id", "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01-"),
            ("flags that are not hex", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g"),
            ("underscores for dashes", "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01"),
            ("nothing", ""),
            ("a one-digit version", "0-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x"),
        ])
    func malformed(_ why: String, _ header: String) {
        #expect(TraceContext(traceparent: header) == nil, "\(why): \(header)")
    }

    @Test("a tracestate longer than 512 characters is dropped, and the traceparent still counts")
    func longTraceState() throws {
        let context = try #require(TraceContext(traceparent: Self.header, tracestate: String(repeating: "a", count: 513)))
        #expect(context.traceState == nil)
    }
}
