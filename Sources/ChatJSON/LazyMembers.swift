import Foundation

/// Which members of an object a ``LazyMembers`` keeps.
@_spi(JSONEngine) public final class MemberFilter: Sendable {
    @usableFromInline let excluded: Set<String>
    @usableFromInline let included: Set<String>?

    /// Keeps every member except `excluded`.
    @_spi(JSONEngine) public init(excluding excluded: Set<String>) {
        self.excluded = excluded
        self.included = nil
    }

    /// Keeps only `included`.
    @_spi(JSONEngine) public init(only included: Set<String>) {
        self.excluded = []
        self.included = included
    }

    @inlinable @_spi(JSONEngine) public func accepts(_ key: String) -> Bool {
        if let included { return included.contains(key) }
        return !excluded.contains(key)
    }
}

/// Members of an object (a model's custom fields) kept as the source bytes until read.
///
/// Most bots never look at most custom fields; leaving them as bytes is what keeps event
/// decoding fast. Reading or setting them materializes a dictionary.
@_spi(JSONEngine) public struct LazyMembers: Sendable, Hashable {
    @usableFromInline enum Storage: Sendable {
        case pending(Data)
        case resolved([String: RawJSON])
    }

    @usableFromInline var storage: Storage
    @usableFromInline let filter: MemberFilter?

    @inlinable @_spi(JSONEngine) public init(source: Data, filter: MemberFilter) {
        storage = .pending(source)
        self.filter = filter
    }

    @inlinable @_spi(JSONEngine) public init(_ values: [String: RawJSON] = [:]) {
        storage = .resolved(values)
        filter = nil
    }

    @_spi(JSONEngine) public var value: [String: RawJSON] {
        get {
            switch storage {
            case .resolved(let values):
                return values
            case .pending(let source):
                // The bytes were validated when the document was indexed, so this cannot fail.
                guard case .object(let object)? = try? JSONParser().parse(source) else { return [:] }
                var values: [String: RawJSON] = [:]
                for (key, member) in object where filter?.accepts(key) ?? true { values[key] = member }
                return values
            }
        }
        set { storage = .resolved(newValue) }
    }

    @_spi(JSONEngine) public static func == (lhs: LazyMembers, rhs: LazyMembers) -> Bool { lhs.value == rhs.value }
    @_spi(JSONEngine) public func hash(into hasher: inout Hasher) { hasher.combine(value) }
}
