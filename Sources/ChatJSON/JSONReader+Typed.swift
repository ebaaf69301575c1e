import Foundation

/// Strict typed reads for the hand-written model decoders. Errors carry no path; callers put
/// the field name in front as the error travels up, so success costs nothing extra.
extension JSONReader {
    @_spi(JSONEngine) public func mismatch(_ node: Int, expected: String) -> JSONError {
        let found = (try? rawJSON(node)).map { "\($0.kindDescription) \($0.shortDescription)" } ?? "an invalid value"
        return .typeMismatch(expected: expected, found: found)
    }

    @inlinable @_spi(JSONEngine) public func readString(_ node: Int) throws(JSONError) -> String {
        guard kind(node) == .string else { throw mismatch(node, expected: "a string") }
        return try string(node)
    }

    @inlinable @_spi(JSONEngine) public func readOptionalString(_ node: Int) throws(JSONError) -> String? {
        isNull(node) ? nil : try readString(node)
    }

    @inlinable func readBool(_ node: Int) throws(JSONError) -> Bool {
        guard kind(node) == .bool else { throw mismatch(node, expected: "a boolean") }
        return nodes[node].flag
    }

    @inlinable @_spi(JSONEngine) public func readOptionalBool(_ node: Int) throws(JSONError) -> Bool? {
        isNull(node) ? nil : try readBool(node)
    }

    @inlinable func readInt(_ node: Int) throws(JSONError) -> Int {
        guard kind(node) == .number else { throw mismatch(node, expected: "an integer") }
        guard let value = integer(node, as: Int.self) else {
            throw .invalid("number \(numberLiteral(node)) is not an integer that fits in Int")
        }
        return value
    }

    @inlinable @_spi(JSONEngine) public func readOptionalInt(_ node: Int) throws(JSONError) -> Int? {
        isNull(node) ? nil : try readInt(node)
    }

    @inlinable @_spi(JSONEngine) public func readOptionalDate(_ node: Int) throws(JSONError) -> Date? {
        switch kind(node) {
        case .null: return nil
        case .string:
            guard let value = date(node) else { throw .invalid("\"\(try string(node))\" is not an RFC 3339 date") }
            return value
        default: throw mismatch(node, expected: "a date string")
        }
    }

    @inlinable @_spi(JSONEngine) public func readObject(_ node: Int) throws(JSONError) -> Int {
        guard kind(node) == .object else { throw mismatch(node, expected: "an object") }
        return node
    }

    @_spi(JSONEngine) public func readIntMap(_ node: Int) throws(JSONError) -> [String: Int] {
        if isNull(node) { return [:] }
        guard kind(node) == .object else { throw mismatch(node, expected: "an object") }
        var map: [String: Int] = [:]
        for (key, value) in members(node) {
            let name = try string(key)
            do {
                map[name] = try readInt(value)
            } catch {
                throw error.prefixed(name)
            }
        }
        return map
    }

    /// The members of `object` not matched by `isKnown`, kept as bytes until read.
    @inlinable @_spi(JSONEngine) public func lazyMembers(_ object: Int, filter: MemberFilter) -> LazyMembers {
        LazyMembers(source: slice(object), filter: filter)
    }
}
