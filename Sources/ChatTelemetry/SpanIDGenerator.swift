import ChatLocking

/// Random trace and span ids from xoshiro256**, seeded once from the system's generator.
/// Ids need to be unpredictable enough not to collide, not secret, and asking the kernel for
/// every id (`getrandom`, three calls per new trace) cost more than the rest of a span.
final class SpanIDGenerator: Sendable {
    private let state: Locked<Xoshiro256StarStar>

    init() {
        let system = SystemRandomNumberGenerator()
        state = Locked(Xoshiro256StarStar(seed: system))
    }

    /// A new trace's id and its root span's id.
    func newTrace() -> (TraceID, SpanID) {
        state.withLock { generator in (TraceID.random(using: &generator), SpanID.random(using: &generator)) }
    }

    /// A span's id.
    func newSpan() -> SpanID {
        state.withLock { generator in SpanID.random(using: &generator) }
    }
}

/// Blackman and Vigna's xoshiro256** generator.
struct Xoshiro256StarStar: RandomNumberGenerator {
    private var s: (UInt64, UInt64, UInt64, UInt64)

    init<Seed: RandomNumberGenerator>(seed: Seed) {
        var seed = seed
        repeat {
            s = (seed.next(), seed.next(), seed.next(), seed.next())
        } while s == (0, 0, 0, 0)
    }

    mutating func next() -> UInt64 {
        let result = rotate(s.1 &* 5, 7) &* 9
        let t = s.1 << 17
        s.2 ^= s.0
        s.3 ^= s.1
        s.1 ^= s.2
        s.0 ^= s.3
        s.2 ^= t
        s.3 = rotate(s.3, 45)
        return result
    }

    private func rotate(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }
}
