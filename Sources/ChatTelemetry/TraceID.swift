import ChatModels

/// The 16-byte id shared by every span of one trace, written as 32 lowercase hex digits.
public struct TraceID: Sendable, Hashable, CustomStringConvertible {
    /// The first eight bytes, big-endian.
    public var high: UInt64
    /// The last eight bytes, big-endian; sampling decisions read these (they are the random part).
    public var low: UInt64

    /// An id from its two halves.
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// A random, non-zero id.
    public static func random<Generator: RandomNumberGenerator>(using generator: inout Generator) -> TraceID {
        var id = TraceID(high: generator.next(), low: generator.next())
        if id.isZero { id.low = 1 }
        return id
    }

    /// Whether every byte is zero, which W3C Trace Context does not allow.
    public var isZero: Bool { high == 0 && low == 0 }

    /// 32 lowercase hex digits.
    public var description: String { HexDigits.string(high) + HexDigits.string(low) }

    /// The id of 32 lowercase hex digits, or nil.
    public init?(hex: Substring) {
        guard hex.utf8.count == 32, let high = HexDigits.value(hex.prefix(16)), let low = HexDigits.value(hex.suffix(16)) else { return nil }
        self.init(high: high, low: low)
    }
}

/// The 8-byte id of one span, written as 16 lowercase hex digits.
public struct SpanID: Sendable, Hashable, CustomStringConvertible {
    /// The id's bytes, big-endian.
    public var value: UInt64

    /// An id from its bytes.
    public init(_ value: UInt64) {
        self.value = value
    }

    /// A random, non-zero id.
    public static func random<Generator: RandomNumberGenerator>(using generator: inout Generator) -> SpanID {
        let value = generator.next() as UInt64
        return SpanID(value == 0 ? 1 : value)
    }

    /// 16 lowercase hex digits.
    public var description: String { HexDigits.string(value) }

    /// The id of 16 lowercase hex digits, or nil.
    public init?(hex: Substring) {
        guard hex.utf8.count == 16, let value = HexDigits.value(hex) else { return nil }
        self.init(value)
    }
}
