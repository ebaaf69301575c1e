import ChatBotKitConfiguration
import ChatBotKit
import ChatClient
import ChatModels
import Foundation

extension DoctorCommand {
    /// The endpoints every bot spends most: what the rate-limit line reports.
    static let botEndpoints: [EndpointName] = [.sendMessage, .uploadFile, .uploadImage, .getMessage, .deleteMessage, .getOrCreateChannel]

    /// The app's server-side quotas of the endpoints bots spend, and whether the bots' own
    /// budgets fit in them: a note when a quota is spent now, or when the budgets of all bots
    /// together allow more than the app does (then the app's quota, shared with everyone else
    /// on the key, holds them back first).
    func checkRateLimits(_ client: ChatClient, _ configuration: BotsConfiguration, _ checkup: Checkup) async {
        let report: RateLimitsReport
        do {
            report = try await client.rateLimits(platforms: [.serverSide], endpoints: Self.botEndpoints)
        } catch {
            checkup.report(.note, "rate limits", "the server does not report its quotas (GET /rate_limits: \(error)); the bots still read them from each answer")
            return
        }
        let quotas = report.serverSide
        var parts = Self.botEndpoints.compactMap { name in quotas[name].map { "\(name) \($0.remaining)/\($0.limit) left" } }
        var notes: [String] = []
        for name in Self.botEndpoints {
            guard let quota = quotas[name], quota.isSpent() else { continue }
            notes.append("\(name) is spent until \(quota.reset.formatted(.iso8601)): the bots wait for the reset")
        }
        for (rate, endpoint) in [("messages", EndpointName.sendMessage), ("uploads", .uploadFile)] {
            guard let limit = quotas[endpoint]?.limit else { continue }
            let perMinute = configuration.bots.compactMap { Self.budgetPerMinute($0.rateBudget, rate) }.reduce(0, +)
            if perMinute > Double(limit) {
                notes.append(
                    "the bots' \(rate) budgets add up to \(Int(perMinute.rounded()))/min, over the app's \(endpoint) quota of \(limit)/min, "
                        + "which every client of the key shares: the quota holds them back first")
            }
        }
        let budgets = configuration.bots.compactMap { entry in entry.rateBudget.map { "\(entry.name) \(Self.describe($0))" } }
        if !budgets.isEmpty { parts.append("budgets: " + budgets.joined(separator: "; ")) }
        checkup.report(notes.isEmpty ? .ok : .note, "rate limits", "server side, per minute: " + (parts + notes).joined(separator: ", "))
    }

    /// A budget's `rate` (`messages`, `uploads`) and its `calls` rate, whichever is lower, per
    /// minute; nil without either.
    static func budgetPerMinute(_ budget: RateBudget?, _ rate: String) -> Double? {
        guard let budget else { return nil }
        let specific = rate == "messages" ? budget.messages : budget.uploads
        let perMinute = [specific, budget.calls].compactMap { $0 }.map { Double($0.count) * 60 / $0.period.timeInterval }
        return perMinute.min()
    }

    /// `messages 30/min, uploads 10/min, waiting up to 30s`.
    static func describe(_ budget: RateBudget) -> String {
        let rates = [("calls", budget.calls), ("messages", budget.messages), ("uploads", budget.uploads)].compactMap { name, rate in
            rate.map { "\(name) \($0)" }
        }
        return rates.joined(separator: ", ") + ", waiting up to \(DurationText.format(budget.maximumWait))"
    }
}
