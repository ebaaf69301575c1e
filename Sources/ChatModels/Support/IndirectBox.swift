/// Lets a value type hold another value of its own type (a message quoting a message).
final class IndirectBox<Value: Sendable & Hashable>: Sendable, Hashable {
    let value: Value
    init(_ value: Value) { self.value = value }
    static func == (lhs: IndirectBox, rhs: IndirectBox) -> Bool { lhs.value == rhs.value }
    func hash(into hasher: inout Hasher) { hasher.combine(value) }
}
