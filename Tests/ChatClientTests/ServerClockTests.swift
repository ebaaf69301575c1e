import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing

@Suite("The server's clock")
struct ServerClockTests {
    @Test("an HTTP date reads in its one preferred form; anything else is nil")
    func httpDates() {
        #expect(ServerClock.parseHTTPDate("Wed, 25 Nov 2026 04:52:40 GMT") == Date(timeIntervalSince1970: 1_795_582_360))
        #expect(ServerClock.parseHTTPDate(" Thu, 01 Jan 1970 00:00:00 GMT ") == Date(timeIntervalSince1970: 0))
        #expect(ServerClock.parseHTTPDate("2026-11-25T04:52:40Z") == nil)
        #expect(ServerClock.parseHTTPDate("Wed, 25 Nov 2026 04:52:40 +0100") == nil)
        #expect(ServerClock.parseHTTPDate("") == nil)
    }

    @Test("the offset compares the middle of the header's second with the middle of the round trip")
    func offsetArithmetic() {
        let sent = Date(timeIntervalSince1970: 1000)
        // The server said 1100 (so 1100.0 to 1100.999) to a request that took 0.4 s: its time
        // was about 1100.5 when this clock said 1000.2.
        let behind = ServerClock(serverDate: Date(timeIntervalSince1970: 1100), sentAt: sent, roundTrip: .milliseconds(400))
        #expect(behind.offset > .milliseconds(100_299) && behind.offset < .milliseconds(100_301))
        #expect(behind.uncertainty == .milliseconds(1700))
        #expect(behind.description == "100.3 s behind the server's (±1.7 s)")
        #expect(behind.isOff(byMoreThan: .seconds(30)))
        let ahead = ServerClock(serverDate: Date(timeIntervalSince1970: 960), sentAt: sent, roundTrip: .zero)
        #expect(ahead.description == "39.5 s ahead of the server's (±1.5 s)")
        #expect(ahead.isOff(byMoreThan: .seconds(30)))
        #expect(!ahead.isOff(byMoreThan: .seconds(38)), "39.5 s less the uncertainty is 38 s")
        let close = ServerClock(serverDate: Date(timeIntervalSince1970: 1001), sentAt: sent, roundTrip: .zero)
        #expect(!close.isOff(byMoreThan: .zero))
    }

    @Test("the dev server, on this machine, keeps this machine's time; a refused key throws the server's error")
    func againstTheDevServer() async throws {
        try await TestChatServer.withServer { server in
            let clock = try await server.client(as: "ann").serverClock()
            // Hummingbird writes a `Date` it refreshes once a second on its event loop; under a
            // full test run's load that refresh can come late, so the header may be a second or
            // two old. Two seconds is also where `bots doctor` starts to note a difference.
            #expect(!clock.isOff(byMoreThan: .seconds(2)), "\(clock)")
            let refused = await #expect(throws: ChatClientError.self) {
                try await server.client(as: "ann") { $0.credentials = .apiSecret("not-this-server's-secret-at-all-32b") }.serverClock()
            }
            #expect(refused?.httpStatus == 401)
        }
    }
}
