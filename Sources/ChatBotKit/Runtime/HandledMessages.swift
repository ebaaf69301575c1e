/// Delivery keys already handled (the most recent `capacity` of them), so redeliveries run no
/// handler twice.
///
/// The keys are kept in a ring: once it is full, each new key replaces the oldest in constant
/// time. An array trimmed from the front shifted all 50,000 keys on every delivery once full,
/// and a delivery then took 11 µs instead of 0.3 µs, under the service's lock.
struct HandledMessages: Sendable {
    private var seen: Set<String> = []
    private var ring: [String] = []
    /// Where the next key goes once the ring is full: the oldest key's slot.
    private var oldest = 0
    /// How many keys are remembered.
    let capacity: Int

    init(capacity: Int = 50_000) {
        precondition(capacity > 0, "a redelivery check must remember at least one key")
        self.capacity = capacity
        ring.reserveCapacity(capacity)
    }

    /// True the first time a key is seen (or the first time since it was forgotten).
    mutating func admit(_ key: String) -> Bool {
        guard seen.insert(key).inserted else { return false }
        if ring.count < capacity {
            ring.append(key)
        } else {
            seen.remove(ring[oldest])
            ring[oldest] = key
            oldest = oldest + 1 == capacity ? 0 : oldest + 1
        }
        return true
    }
}
