import ChatModels

/// What the dev server's filters (channels, messages, members) read alike.
enum FilterConditions {
    /// The filters of a logical operator (`$and`, `$or`, `$nor`): a non-empty array of objects.
    static func subfilters(_ value: RawJSON, of key: String, operation: String) throws -> [JSONObject] {
        guard let parts = value.arrayValue, !parts.isEmpty else {
            throw APIError.input(operation, "\(key) must be a non-empty array of filters")
        }
        return try parts.map { part in
            guard let object = part.objectValue else { throw APIError.input(operation, "\(key) must be a non-empty array of filters") }
            return object
        }
    }

    /// The strings a filter value allows: `"x"`, `{"$eq": "x"}` or `{"$in": ["x", "y"]}`.
    static func strings(_ value: RawJSON, key: String, operation: String) throws -> Set<String> {
        if let text = value.stringValue { return [text] }
        if case .object(let object) = value, object.count == 1, let (op, operand) = object.members.first {
            switch (op, operand) {
            case ("$eq", .string(let text)): return [text]
            case ("$in", .array(let elements)):
                // A list with anything but strings in it is refused, not read in part.
                let texts = elements.compactMap(\.stringValue)
                if texts.count == elements.count { return Set(texts) }
            default: break
            }
        }
        throw APIError.input(operation, "filter on \(key) must be a string, {\"$eq\": ...} or {\"$in\": [...]}")
    }
}
