/// A JSON object that keeps its members in their original order.
///
/// Lookups scan the members (the last duplicate wins, as in most JSON parsers); chat payloads
/// have a few dozen keys at most, where a scan beats hashing.
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// The members in order.
    public private(set) var members: [(key: String, value: RawJSON)]

    /// An empty object.
    public init() { members = [] }

    /// An object with the given members, in order.
    public init<S: Sequence>(_ members: S) where S.Element == (String, RawJSON) {
        self.members = members.map { (key: $0.0, value: $0.1) }
    }

    /// An object from a dictionary; keys are sorted so the output is deterministic.
    public init(_ dictionary: [String: RawJSON]) {
        members = dictionary.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }
    }

    /// An object from a literal, keys in the order written.
    public init(dictionaryLiteral elements: (String, RawJSON)...) {
        self.init(elements)
    }

    /// Reserves space for `count` members (used by the parser).
    package init(reservingCapacity count: Int) {
        members = []
        members.reserveCapacity(count)
    }

    /// Appends a member without looking for an existing one (used by the parser).
    mutating func appendMember(_ key: String, _ value: RawJSON) {
        members.append((key: key, value: value))
    }

    /// The number of members.
    public var count: Int { members.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { members.isEmpty }

    /// The keys in order.
    public var keys: [String] { members.map(\.key) }

    /// The value for `key`, or `nil`. Setting `nil` removes the key; setting a new key appends it.
    public subscript(key: String) -> RawJSON? {
        get {
            var index = members.endIndex
            while index > members.startIndex {
                index -= 1
                if members[index].key == key { return members[index].value }
            }
            return nil
        }
        set {
            if let newValue {
                if let index = members.lastIndex(where: { $0.key == key }) {
                    members[index].value = newValue
                } else {
                    members.append((key: key, value: newValue))
                }
            } else {
                members.removeAll { $0.key == key }
            }
        }
    }

    /// Whether the object has a member named `key`.
    public func contains(_ key: String) -> Bool {
        members.contains { $0.key == key }
    }

    /// The members as a dictionary (order is lost).
    public var dictionary: [String: RawJSON] {
        Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// Iterates the members in order.
    public func makeIterator() -> IndexingIterator<[(key: String, value: RawJSON)]> {
        members.makeIterator()
    }

    /// Objects are equal when they have the same keys with equal values, whatever the order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        let left = lhs.dictionary
        let right = rhs.dictionary
        return left == right
    }

    /// Hashes the members independently of their order, matching `==`.
    public func hash(into hasher: inout Hasher) {
        var combined = 0
        for (key, value) in dictionary {
            var member = Hasher()
            member.combine(key)
            member.combine(value)
            combined ^= member.finalize()
        }
        hasher.combine(combined)
    }
}
