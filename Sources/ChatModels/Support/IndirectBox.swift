/// An immutable value behind one shared reference: lets a value type hold another value of its
/// own type (a message quoting a message), keep rarely present models out of line, and keep a
/// model's fields in one place (see ``FieldBox``).
final class IndirectBox<Value: Sendable & Hashable>: Sendable, Hashable {
    let value: Value
    init(_ value: Value) { self.value = value }
    static func == (lhs: IndirectBox, rhs: IndirectBox) -> Bool { lhs === rhs || lhs.value == rhs.value }
    func hash(into hasher: inout Hasher) { hasher.combine(value) }
}
