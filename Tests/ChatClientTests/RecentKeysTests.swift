import ChatClient
import Testing

@Suite("RecentKeys: the most recent keys are remembered, the oldest forgotten first")
struct RecentKeysTests {
    /// Offers each key in turn; true where it was admitted (seen for the first time).
    static func offer(_ keys: [String], to handled: inout RecentKeys) -> [Bool] {
        keys.map { handled.insert($0) }
    }

    @Test("a key is admitted once; once the ring is full the oldest key is forgotten first")
    func forgetsOldestFirst() {
        var handled = RecentKeys(capacity: 3)
        #expect(Self.offer(["a", "a", "b", "c"], to: &handled) == [true, false, true, true], "a redelivery is refused")
        // Full: d takes the oldest slot, a's; a is then new again and takes b's.
        #expect(Self.offer(["d", "a"], to: &handled) == [true, true])
        #expect(Self.offer(["c", "d", "a"], to: &handled) == [false, false, false], "the three most recent are remembered")
        #expect(Self.offer(["b"], to: &handled) == [true], "b was forgotten when a came back")
        #expect(handled.count == 3 && handled.contains("b") && !handled.contains("c"), "b took c's slot")
        // Twice round the ring: exactly the last three keys are remembered.
        let many = (0..<7).map { "k\($0)" }
        #expect(Self.offer(many, to: &handled) == Array(repeating: true, count: 7))
        #expect(Self.offer(["k4", "k5", "k6", "k3"], to: &handled) == [false, false, false, true])
    }

    @Test("a refused redelivery takes no slot: it evicts nothing")
    func refusedKeysTakeNoSlot() {
        var handled = RecentKeys(capacity: 2)
        #expect(Self.offer(["x", "y", "y", "y", "y", "x"], to: &handled) == [true, true, false, false, false, false])
    }

    @Test("100,000 keys through a ring of 50,000: the last 50,000 are refused, the first ones admitted again")
    func fullRing() {
        var handled = RecentKeys(capacity: 50_000)
        let keys = (0..<100_000).map { "m\($0)" }
        #expect(Self.offer(keys, to: &handled).allSatisfy { $0 })
        #expect(Self.offer(Array(keys[50_000...]), to: &handled).allSatisfy { !$0 })
        #expect(Self.offer(["m49999", "m0"], to: &handled) == [true, true])
    }
}
