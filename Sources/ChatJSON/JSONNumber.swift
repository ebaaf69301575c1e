/// A JSON number kept as the literal text it was written with.
///
/// Converting on demand, rather than at parse time, means a number too big for `Int` or `Double`
/// never fails the message it is in: only a payload field that asks for it reports the problem.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The number as written in JSON, for example `75500`, `-1.5e3`.
    public let literal: String

    /// A number from its JSON text; `nil` if the text is not a valid JSON number.
    public init?(literal: String) {
        guard JSONNumber.isValidLiteral(literal.utf8) else { return nil }
        self.literal = literal
    }

    /// A number whose literal the caller has already validated.
    package init(validatedLiteral: String) {
        self.literal = validatedLiteral
    }

    /// An integer number.
    public init<I: BinaryInteger>(_ value: I) {
        self.literal = String(value)
    }

    /// A floating-point number. Non-finite values cannot be written in JSON and become `0`.
    public init(_ value: Double) {
        guard value.isFinite else {
            self.literal = "0"
            return
        }
        if value == value.rounded(.towardZero), abs(value) < 1e15 {
            self.literal = String(Int64(value))
        } else {
            self.literal = String(describing: value)
        }
    }

    /// The value as `Int` when it is an integer that fits; `nil` otherwise.
    public var int: Int? {
        if let exact = Int(literal) { return exact }
        // Integers written with a fraction or exponent ("3.0", "1e3") are still integers.
        guard let double = Double(literal), double.isFinite, double == double.rounded(.towardZero),
            double >= -9.223_372_036_854_775_808e18, double < 9.223_372_036_854_775_808e18
        else { return nil }
        return Int(double)
    }

    /// The value as `Int64` when it is an integer that fits.
    public var int64: Int64? { int.map(Int64.init) }

    /// The value as a finite `Double`; `nil` when it overflows.
    public var double: Double? {
        guard let value = Double(literal), value.isFinite else { return nil }
        return value
    }

    /// The JSON text.
    public var description: String { literal }

    /// Equality is numeric where both sides convert, so `1.0` and `1` are the same number.
    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        if lhs.literal == rhs.literal { return true }
        if let left = lhs.double, let right = rhs.double { return left == right }
        return false
    }

    /// Hashes the numeric value, matching `==`.
    public func hash(into hasher: inout Hasher) {
        if let value = double {
            hasher.combine(value)
        } else {
            hasher.combine(literal)
        }
    }

    /// Checks the JSON number grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    static func isValidLiteral<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
        var index = bytes.startIndex
        func peek() -> UInt8? { index < bytes.endIndex ? bytes[index] : nil }
        func digits() -> Int {
            var count = 0
            while let byte = peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                count += 1
                index = bytes.index(after: index)
            }
            return count
        }
        if peek() == UInt8(ascii: "-") { index = bytes.index(after: index) }
        if peek() == UInt8(ascii: "0") {
            index = bytes.index(after: index)
        } else if digits() == 0 {
            return false
        }
        if peek() == UInt8(ascii: ".") {
            index = bytes.index(after: index)
            if digits() == 0 { return false }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index = bytes.index(after: index)
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index = bytes.index(after: index) }
            if digits() == 0 { return false }
        }
        return index == bytes.endIndex
    }
}
