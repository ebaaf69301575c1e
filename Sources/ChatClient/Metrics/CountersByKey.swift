import ChatLocking
import CoreMetrics

/// Counters of one metric told apart by one more dimension whose values appear as they come
/// (event types, attachment types), each made once: making a handle asks the backend to look
/// the metric up, which is too slow to do per event. Shared by connections and bots.
package final class CountersByKey<Key: Hashable & Sendable & RawRepresentable<String>>: Sendable {
    private let label: String
    private let dimensions: [(String, String)]
    private let keyDimension: String
    private let factory: any MetricsFactory
    private let counters = Locked<[Key: Counter]>([:])

    /// Counters of `label` with `dimensions`, plus `keyDimension` set to each key's `rawValue`.
    package init(label: String, dimensions: [(String, String)], keyDimension: String, factory: any MetricsFactory) {
        self.label = label
        self.dimensions = dimensions
        self.keyDimension = keyDimension
        self.factory = factory
    }

    /// Adds `count` to the counter of `key`.
    package func increment(_ key: Key, by count: Int = 1) {
        let counter = counters.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = Counter(label: label, dimensions: dimensions + [(keyDimension, key.rawValue)], factory: factory)
            counters[key] = counter
            return counter
        }
        counter.increment(by: count)
    }
}
