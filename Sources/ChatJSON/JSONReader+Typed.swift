import Foundation

/// Strict typed reads for the hand-written model decoders. Errors carry no path; callers put
/// the field name in front as the error travels up, so success costs nothing extra.
extension JSONReader {
    package func mismatch(_ node: Int, expected: String) -> JSONError {
        let found = (try? rawJSON(node)).map { "\($0.kindDescription) \($0.shortDescription)" } ?? "an invalid value"
        return .typeMismatch(expected: expected, found: found)
    }

    package func readString(_ node: Int) throws(JSONError) -> String {
        guard kind(node) == .string else { throw mismatch(node, expected: "a string") }
        return try string(node)
    }

    package func readOptionalString(_ node: Int) throws(JSONError) -> String? {
        isNull(node) ? nil : try readString(node)
    }

    func readBool(_ node: Int) throws(JSONError) -> Bool {
        guard kind(node) == .bool else { throw mismatch(node, expected: "a boolean") }
        return nodes[node].flag
    }

    package func readOptionalBool(_ node: Int) throws(JSONError) -> Bool? {
        isNull(node) ? nil : try readBool(node)
    }

    func readInt(_ node: Int) throws(JSONError) -> Int {
        guard kind(node) == .number else { throw mismatch(node, expected: "an integer") }
        guard let value = integer(node, as: Int.self) else {
            throw .invalid("number \(numberLiteral(node)) is not an integer that fits in Int")
        }
        return value
    }

    package func readOptionalInt(_ node: Int) throws(JSONError) -> Int? {
        isNull(node) ? nil : try readInt(node)
    }

    package func readOptionalDate(_ node: Int) throws(JSONError) -> Date? {
        switch kind(node) {
        case .null: return nil
        case .string:
            guard let value = date(node) else { throw .invalid("\"\(try string(node))\" is not an RFC 3339 date") }
            return value
        default: throw mismatch(node, expected: "a date string")
        }
    }

    package func readObject(_ node: Int) throws(JSONError) -> Int {
        guard kind(node) == .object else { throw mismatch(node, expected: "an object") }
        return node
    }

    func readModel<M: ReaderDecodable>(_ type: M.Type, _ node: Int) throws(JSONError) -> M {
        try M(reader: self, node: node)
    }

    package func readOptionalModel<M: ReaderDecodable>(_ type: M.Type, _ node: Int) throws(JSONError) -> M? {
        isNull(node) ? nil : try M(reader: self, node: node)
    }

    /// The model at `node` (nil for `null`) read into `slot`, in place where the model can.
    package func readOptionalModel<M: ReaderDecodable>(into slot: inout M?, _ node: Int) throws(JSONError) {
        try M.read(into: &slot, self, node)
    }

    package func readModels<M: ReaderDecodable>(_ type: M.Type, _ node: Int) throws(JSONError) -> [M] {
        if isNull(node) { return [] }
        guard kind(node) == .array else { throw mismatch(node, expected: "an array") }
        var models: [M] = []
        var position = 0
        for element in elements(node) {
            do {
                models.append(try M(reader: self, node: element))
            } catch {
                throw error.prefixed(index: position)
            }
            position += 1
        }
        return models
    }

    package func readIntMap(_ node: Int) throws(JSONError) -> [String: Int] {
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
    package func lazyMembers(_ object: Int, filter: MemberFilter) -> LazyMembers {
        LazyMembers(source: slice(object), filter: filter)
    }
}
