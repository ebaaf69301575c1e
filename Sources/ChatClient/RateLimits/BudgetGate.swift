import ChatLocking
import ChatModels

/// Gives each call its turn within a ``RateBudget``: the generic cell rate algorithm, one
/// theoretical arrival time per rate, so that a burst of up to a rate's count goes at once and
/// later calls are spaced evenly. A turn is reserved when it is given, so concurrent calls
/// queue up behind each other instead of all waking at the same moment.
final class BudgetGate: Sendable {
    /// A call's turn: how long it waits and the rate that holds it longest, or the rate that
    /// would make it wait too long.
    enum Turn: Equatable {
        case go(after: Duration, heldBy: String?)
        case overBudget(rate: String, limit: RateBudget.Rate, wait: Duration)
    }

    let budget: RateBudget
    private let arrivals = Locked<[String: ContinuousClock.Instant]>([:])

    init(budget: RateBudget) {
        self.budget = budget
    }

    /// Reserves a turn for a call of `endpoint` at `now` in every rate it spends; a call that
    /// would wait longer than the budget's `maximumWait` reserves nothing.
    func turn(for endpoint: EndpointName, now: ContinuousClock.Instant = .now) -> Turn {
        let rates = budget.rates(for: endpoint)
        guard !rates.isEmpty else { return .go(after: .zero, heldBy: nil) }
        return arrivals.withLock { arrivals in
            var wait = Duration.zero
            var slowest = rates[0]
            for (name, rate) in rates {
                let tolerance = rate.spacing * (rate.count - 1)
                let arrival = arrivals[name] ?? now
                let earliest = arrival - tolerance
                if earliest - now > wait {
                    wait = earliest - now
                    slowest = (name, rate)
                }
            }
            if wait > budget.maximumWait { return .overBudget(rate: slowest.name, limit: slowest.rate, wait: wait) }
            let start = now + wait
            for (name, rate) in rates {
                arrivals[name] = max(arrivals[name] ?? start, start) + rate.spacing
            }
            return .go(after: wait, heldBy: wait > .zero ? slowest.name : nil)
        }
    }

    /// How long a call of `endpoint` would wait for its turn at `now`, reserving nothing.
    func wait(for endpoint: EndpointName, now: ContinuousClock.Instant = .now) -> Duration {
        let rates = budget.rates(for: endpoint)
        return arrivals.withLock { arrivals in
            rates.reduce(Duration.zero) { wait, entry in
                let earliest = (arrivals[entry.name] ?? now) - entry.rate.spacing * (entry.rate.count - 1)
                return max(wait, earliest - now)
            }
        }
    }
}
