import ChatBotKitTesting
@testable import ChatClient
import ChatModels
import Foundation
import Prometheus
import Testing

@Suite("Rate budgets: a client keeps its own calls below the app's quotas", .timeLimit(.minutes(1)))
struct RateBudgetTests {
    @Test("rates read as 30/min, 5/s, 100/h, 2000/day or 10/15s, and anything else is refused")
    func rates() {
        #expect(RateBudget.Rate("30/min") == RateBudget.Rate(count: 30, per: .seconds(60)))
        #expect(RateBudget.Rate("5/s")?.description == "5/s")
        #expect(RateBudget.Rate("100/h")?.period == .seconds(3600))
        #expect(RateBudget.Rate("2000/day")?.description == "2000/day")
        #expect(RateBudget.Rate("10/15s")?.description == "10/15s")
        #expect(RateBudget.Rate(" 7 / minute ")?.description == "7/min")
        for bad in ["", "30", "0/min", "-1/s", "x/min", "30/fortnight", "30/min/h", "30/0s"] {
            #expect(RateBudget.Rate(bad) == nil, "\(bad)")
        }
    }

    @Test("a burst up to the count goes at once, later calls are spaced evenly, and one that would wait too long reserves nothing")
    func turns() throws {
        let budget = RateBudget(messages: RateBudget.Rate(count: 3, per: .seconds(2)), maximumWait: .seconds(1))
        let gate = BudgetGate(budget: budget)
        let start = ContinuousClock.now
        let spacing = Duration.seconds(2) / 3
        for _ in 0..<3 { #expect(gate.turn(for: .sendMessage, now: start) == .go(after: .zero, heldBy: nil)) }
        #expect(gate.turn(for: .sendMessage, now: start) == .go(after: spacing, heldBy: "messages"))
        let refused = gate.turn(for: .sendMessage, now: start)
        #expect(refused == .overBudget(rate: "messages", limit: try #require(budget.messages), wait: spacing * 2))
        // Nothing was reserved by the refusal: a second later the next turn is a third of a second away.
        #expect(gate.turn(for: .sendMessage, now: start + .seconds(1)) == .go(after: spacing * 2 - .seconds(1), heldBy: "messages"))
        #expect(gate.turn(for: .getApp, now: start) == .go(after: .zero, heldBy: nil), "a budget of messages leaves other calls alone")
    }

    @Test("calls spend the calls rate and their own: an upload waits on whichever is further behind")
    func combinedRates() {
        let gate = BudgetGate(
            budget: RateBudget(calls: RateBudget.Rate(count: 2, per: .seconds(1)), uploads: RateBudget.Rate(count: 1, per: .seconds(10))))
        let now = ContinuousClock.now
        #expect(gate.turn(for: .uploadFile, now: now) == .go(after: .zero, heldBy: nil))
        #expect(gate.turn(for: .getMessage, now: now) == .go(after: .zero, heldBy: nil))
        #expect(gate.turn(for: .getMessage, now: now) == .go(after: .milliseconds(500), heldBy: "calls"))
        #expect(gate.turn(for: .uploadImage, now: now) == .go(after: .seconds(10), heldBy: "uploads"))
    }

    @Test("against the dev server: sends over budget wait their turn, and one that would wait too long fails unsent")
    func budgetOnTheServer() async throws {
        try await TestChatServer.withServer { server in
            let registry = PrometheusCollectorRegistry()
            let paced = server.client(as: "bot", metricsFactory: PrometheusMetricsFactory(registry: registry)) {
                $0.rateBudget = RateBudget(messages: RateBudget.Rate(count: 2, per: .seconds(1)))
            }
            try await paced.queryChannel("messaging:budget", members: ["bot"])
            let start = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for number in 0..<4 {
                    group.addTask { try await paced.channel("messaging:budget").sendMessage(text: "\(number)", id: "paced-\(number)") }
                }
                try await group.waitForAll()
            }
            // Two at once, then one every half second.
            #expect(ContinuousClock.now - start >= .milliseconds(950))
            var samples = MetricSamples(registry.emitToString())
            #expect((samples["chatbotkit_budget_wait_seconds_count", ["budget": "messages"]] ?? 0) >= 1)
            #expect(samples["chatbotkit_http_requests_total", ["operation": "SendMessage", "status": "201"]] == 4)

            let strict = server.client(as: "bot", metricsFactory: PrometheusMetricsFactory(registry: registry)) {
                $0.rateBudget = RateBudget(messages: RateBudget.Rate(count: 1, per: .seconds(60)), maximumWait: .milliseconds(100))
            }
            try await strict.channel("messaging:budget").sendMessage(text: "the one a minute", id: "strict-1")
            let refused = await #expect(throws: ChatClientError.self) {
                try await strict.channel("messaging:budget").sendMessage(text: "over budget", id: "strict-2")
            }
            #expect(refused?.code == .budgetExceeded)
            #expect(refused?.httpStatus == nil, "nothing was sent")
            let message = refused?.message ?? ""
            #expect(message.hasPrefix("SendMessage was not sent: the client's messages budget of 1/min is spent, and its next turn is in "), "\(message)")
            #expect(message.contains(" s, over the 100ms a call may wait; raise the budget or its maximum wait, or make fewer calls"), "\(message)")
            samples = MetricSamples(registry.emitToString())
            #expect(samples["chatbotkit_budget_refusals_total", ["budget": "messages"]] == 1)
            _ = try await strict.appSettings(refresh: true)
            let stored = try await strict.queryChannel("messaging:budget").messages.map(\.id)
            #expect(stored.contains("strict-1") && !stored.contains("strict-2"))
        }
    }
}
