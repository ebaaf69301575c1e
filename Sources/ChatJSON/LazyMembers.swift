import Foundation

/// Which members of an object a ``LazyMembers`` keeps.
package final class MemberFilter: Sendable {
    private let excluded: Set<String>
    private let included: Set<String>?

    /// Keeps every member except `excluded`.
    package init(excluding excluded: Set<String>) {
        self.excluded = excluded
        self.included = nil
    }

    /// Keeps only `included`.
    package init(only included: Set<String>) {
        self.excluded = []
        self.included = included
    }

    package func accepts(_ key: String) -> Bool {
        if let included { return included.contains(key) }
        return !excluded.contains(key)
    }
}

/// Members of an object (a model's custom fields) kept as the source bytes until read.
///
/// Most bots never look at most custom fields; leaving them as bytes is what keeps event
/// decoding fast. Reading or setting them materializes a dictionary.
package struct LazyMembers: Sendable, Hashable {
    private enum Storage: Sendable {
        case pending(Data)
        case resolved([String: RawJSON])
    }

    private var storage: Storage
    private let filter: MemberFilter?

    package init(source: Data, filter: MemberFilter) {
        storage = .pending(source)
        self.filter = filter
    }

    package init(_ values: [String: RawJSON] = [:]) {
        storage = .resolved(values)
        filter = nil
    }

    package var value: [String: RawJSON] {
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

    package static func == (lhs: LazyMembers, rhs: LazyMembers) -> Bool { lhs.value == rhs.value }
    package func hash(into hasher: inout Hasher) { hasher.combine(value) }
}
