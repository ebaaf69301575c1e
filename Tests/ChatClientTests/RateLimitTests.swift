import ChatBotKitTesting
@testable import ChatClient
@testable import ChatDevServer
import ChatModels
import ChatTransport
import Foundation
import Prometheus
import Testing

@Suite("Rate limits: quotas per endpoint on the dev server, waited out by the client", .timeLimit(.minutes(1)))
struct RateLimitTests {
    /// Windows for the tests whose calls must all fall in one window, long enough for a loaded
    /// machine (the whole suite runs in parallel on two cores).
    static let roomyWindow = 6

    /// Sleeps until just after a window starts, so that a test's calls fall in windows it knows.
    static func startOfWindow(seconds: Int = roomyWindow) async throws {
        let now = Date().timeIntervalSince1970
        let next = (now / Double(seconds)).rounded(.down) * Double(seconds) + Double(seconds)
        try await Task.sleep(for: .milliseconds(Int64((next - now) * 1000) + 20))
    }

    static func roomy(_ configuration: inout DevServerConfiguration) {
        configuration.rateLimits = [.sendMessage: 3]
        configuration.rateLimitWindow = .seconds(roomyWindow)
    }

    @Test("sent one after another, seven messages on a quota of three wait for the resets instead of getting a 429")
    func sequentialSendsWait() async throws {
        // Roomy windows here too: in 2 s ones a loaded machine sent three messages so slowly that
        // a window ended by itself, and the client had one reset less to wait for.
        try await TestChatServer.withServer(configure: Self.roomy) { server in
            let registry = PrometheusCollectorRegistry()
            let client = server.client(as: "bot", metricsFactory: PrometheusMetricsFactory(registry: registry))
            try await client.queryChannel("messaging:paced", members: ["bot"])
            try await Self.startOfWindow()
            for number in 0..<7 { try await client.channel("messaging:paced").sendMessage(text: "number \(number)", id: "paced-\(number)") }

            let samples = MetricSamples(registry.emitToString())
            #expect(samples["chatbotkit_http_requests_total", ["operation": "SendMessage", "status": "201"]] == 7)
            #expect(samples["chatbotkit_http_requests_total", ["operation": "SendMessage", "status": "429"]] == nil)
            // Three windows at least: the quota was spent twice and waited out each time.
            #expect((samples["chatbotkit_rate_limit_wait_seconds_count", ["operation": "SendMessage"]] ?? 0) >= 2)
            let quota = try #require(client.observedRateLimit(for: .sendMessage))
            #expect(quota.limit == 3 && quota.remaining < 3)
            let state = try await client.queryChannel("messaging:paced")
            #expect(state.messages.map(\.id) == (0..<7).map { "paced-\($0)" })
        }
    }

    @Test("a quota another client spent: the 429 is waited out until the reset, then the call goes through")
    func spentByAnotherClient() async throws {
        try await TestChatServer.withServer(configure: Self.roomy) { server in
            let spender = server.client(as: "bot")
            try await spender.queryChannel("messaging:shared", members: ["bot"])
            let registry = PrometheusCollectorRegistry()
            let late = server.client(as: "bot", metricsFactory: PrometheusMetricsFactory(registry: registry))
            try await Self.startOfWindow()
            for number in 0..<3 { try await spender.channel("messaging:shared").sendMessage(text: "\(number)", id: "early-\(number)") }
            #expect(spender.observedRateLimit(for: .sendMessage)?.remaining == 0)
            #expect(late.observedRateLimit(for: .sendMessage) == nil, "each client learns from its own answers")
            let start = Date()
            try await late.channel("messaging:shared").sendMessage(text: "after the reset", id: "late")
            #expect(Date().timeIntervalSince(start) > 0.5, "it waited for the next window")

            let samples = MetricSamples(registry.emitToString())
            #expect(samples["chatbotkit_http_requests_total", ["operation": "SendMessage", "status": "429"]] == 1)
            #expect(samples["chatbotkit_http_retries_total", ["operation": "SendMessage", "reason": "rate_limited"]] == 1)
            #expect(samples["chatbotkit_http_requests_total", ["operation": "SendMessage", "status": "201"]] == 1)
        }
    }

    @Test("a reset further away than maximumRateLimitWait is not waited for: the call goes and its 429 is the error")
    func resetTooFarAway() async throws {
        try await TestChatServer.withServer(configure: {
            $0.rateLimits = [.sendMessage: 1]
            $0.rateLimitWindow = .seconds(Self.roomyWindow)
        }) { server in
            let client = server.client(as: "bot") {
                $0.maximumRateLimitWait = .milliseconds(100)
                $0.maximumAttempts = 2
            }
            try await client.queryChannel("messaging:busy", members: ["bot"])
            try await Self.startOfWindow()
            try await client.channel("messaging:busy").sendMessage(text: "the one this minute allows", id: "only")
            let start = Date()
            let refused = await #expect(throws: ChatClientError.self) {
                try await client.channel("messaging:busy").sendMessage(text: "one too many", id: "refused")
            }
            #expect(Date().timeIntervalSince(start) < 4, "it did not wait for the window to end")
            #expect(refused?.httpStatus == 429 && refused?.streamCode == 9)
            #expect(refused?.message.hasPrefix("SendMessage failed with error") == true, "\(String(describing: refused))")
            #expect(try await client.queryChannel("messaging:busy").messages.map(\.id) == ["only"], "the refused message is not stored")
        }
    }

    @Test("GET /rate_limits: every endpoint per platform, the platforms and endpoints asked for, and an unknown name refused")
    func report() async throws {
        try await TestChatServer.withServer(configure: Self.roomy) { server in
            let client = server.client(as: "bot")
            try await client.queryChannel("messaging:counted", members: ["bot"])
            try await Self.startOfWindow()
            try await client.channel("messaging:counted").sendMessage(text: "one", id: "counted")

            let all = try await client.rateLimits()
            for platform in RateLimitsReport.Platform.allCases {
                #expect(Set(all[platform].keys) == Set(EndpointName.known), "\(platform)")
            }
            #expect(all.serverSide[.sendMessage]?.limit == 3 && all.serverSide[.sendMessage]?.remaining == 2)
            #expect(all.web[.sendMessage]?.remaining == 3, "the server's calls count on its own platform")
            #expect(all.serverSide[.getApp]?.limit == 10_000)
            let reset = try #require(all.serverSide[.sendMessage]?.reset)
            #expect(reset > Date() && reset <= Date().addingTimeInterval(Double(Self.roomyWindow)))

            let picked = try await client.rateLimits(platforms: [.web], endpoints: [.sendMessage, .uploadFile])
            #expect(picked.serverSide.isEmpty && picked.android.isEmpty && picked.ios.isEmpty)
            #expect(Set(picked.web.keys) == [.sendMessage, .uploadFile])

            let refused = await #expect(throws: ChatClientError.self) { try await client.rateLimits(endpoints: ["SendMesage"]) }
            #expect(refused?.code == .api && refused?.streamCode == 4 && refused?.httpStatus == 400)
            #expect(refused?.message.contains("\"SendMesage\" is not an endpoint") == true)
            #expect(refused?.message.contains("SendMessage") == true)
        }
    }

    @Test("every named route counts against its own endpoint's quota and says so in its headers; file links count against none")
    func everyRouteIsNamed() async throws {
        try await TestChatServer.withServer { server in
            let transport = CurlHTTPTransport()
            defer { transport.shutdown() }
            // Each call's own headers say what its window had counted; a minute may turn during
            // the loop, so calls are compared with those of the same window (same reset).
            var counted: [EndpointName: [String: Int]] = [:]
            for (route, name) in EndpointRoutes.names {
                let parts = route.split(separator: " ", maxSplits: 1)
                let path = parts[1].replacing(/\{[a-zA-Z]+\}/, with: "x")
                // No token: refused by every route, but counted first, on the web platform.
                let response = try await transport.send(
                    TransportRequest(method: String(parts[0]), url: URL(string: "\(server.baseURL)\(path)?api_key=\(server.apiKey)")!))
                #expect(response.status == 401, "\(route)")
                #expect(response.header("x-ratelimit-limit") == "10000", "\(route)")
                let reset = try #require(response.header("x-ratelimit-reset"), "\(route)")
                counted[name, default: [:]][reset, default: 0] += 1
                #expect(response.header("x-ratelimit-remaining") == String(10_000 - counted[name]![reset]!), "\(route)")
            }
            #expect(Set(counted.keys) == Set(EndpointName.known), "every endpoint has a route, and every route an endpoint")
            let report = try await server.client(as: "bot").rateLimits(platforms: [.web])
            for (name, windows) in counted {
                let quota = try #require(report.web[name], "\(name)")
                let reset = String(Int(quota.reset.timeIntervalSince1970))
                #expect(quota.remaining == 10_000 - (windows[reset] ?? 0), "\(name)")
            }

            let file = try await transport.send(TransportRequest(method: "GET", url: URL(string: "\(server.baseURL)/files/x/x.png")!))
            #expect(file.status == 403 && file.header("x-ratelimit-limit") == nil)
        }
    }

    @Test("an injected 429 carries its own quota headers only, not the limiter's beside them")
    func injectedRateLimit() async throws {
        try await TestChatServer.withServer { server in
            let transport = CurlHTTPTransport()
            defer { transport.shutdown() }
            server.server.injectFault(InjectedFault(pathContains: "/app", status: 429, code: 9, count: 1, resetAfterSeconds: 5))
            let url = URL(string: "\(server.baseURL)/app?api_key=\(server.apiKey)")!
            let refused = try await transport.send(TransportRequest(method: "GET", url: url))
            #expect(refused.status == 429)
            #expect(refused.header("x-ratelimit-limit") == "1" && refused.header("x-ratelimit-remaining") == "0")
            let answered = try await transport.send(TransportRequest(method: "GET", url: url))
            #expect(answered.header("x-ratelimit-limit") == "10000")
        }
    }

    @Test("the ledger lets calls go while requests are left, counts each off, and holds the rest until the reset")
    func ledger() {
        let ledger = RateLimitLedger()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(ledger.take(.sendMessage, now: now) == nil, "a quota never seen holds nothing back")
        ledger.record(RateLimitQuota(limit: 3, remaining: 2, reset: now.addingTimeInterval(10)), for: .sendMessage)
        #expect(ledger.take(.sendMessage, now: now) == nil)
        #expect(ledger.take(.sendMessage, now: now) == nil)
        #expect(ledger.take(.sendMessage, now: now) == .seconds(10))
        #expect(ledger.take(.sendMessage, now: now.addingTimeInterval(4)) == .seconds(6))
        #expect(ledger.take(.getApp, now: now) == nil, "quotas are per endpoint")
        #expect(ledger.take(.sendMessage, now: now.addingTimeInterval(10)) == nil, "a window that is over holds nothing back")
        #expect(ledger.quota(for: .sendMessage)?.remaining == 0)
    }

    @Test("quotas read from headers: repeated values take the first, missing or malformed ones give none")
    func quotaHeaders() {
        func quota(_ headers: [String: String]) -> RateLimitQuota? { RateLimitQuota(headers: { headers[$0] }) }
        #expect(
            quota(["x-ratelimit-limit": "60", "x-ratelimit-remaining": "59", "x-ratelimit-reset": "1800000060"])
                == RateLimitQuota(limit: 60, remaining: 59, reset: Date(timeIntervalSince1970: 1_800_000_060)))
        #expect(quota(["x-ratelimit-limit": "60, 60", "x-ratelimit-remaining": " 7,8", "x-ratelimit-reset": "1800000060"])?.remaining == 7)
        #expect(quota(["x-ratelimit-limit": "60", "x-ratelimit-remaining": "59"]) == nil)
        #expect(quota(["x-ratelimit-limit": "sixty", "x-ratelimit-remaining": "59", "x-ratelimit-reset": "1800000060"]) == nil)
        #expect(quota([:]) == nil)
    }
}
