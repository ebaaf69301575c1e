import ChatModels

/// The `set` and `unset` of a partial update (of a channel, a member or a user), checked: at
/// least one change, no field the server owns, no field in both.
struct FieldChanges: Sendable {
    /// The fields to set, with their values.
    let set: JSONObject
    /// The fields to remove.
    let unset: [String]

    /// Reads `set` and `unset` from `body`; `reserved` are the server's fields, `path` names
    /// the object in errors (`users[0]`), empty for the request's body.
    init(_ body: JSONObject, reserved: Set<String>, at path: String = "", operation: String) throws {
        let member = path.isEmpty ? "" : "\(path)."
        let within = path.isEmpty ? "" : "\(path): "
        var set = JSONObject()
        if let value = body["set"], !value.isNull {
            guard let object = value.objectValue else { throw APIError.input(operation, "\(member)set must be an object of fields to set") }
            set = object
        }
        var unset: [String] = []
        if let value = body["unset"], !value.isNull {
            guard let names = value.arrayValue?.compactMap(\.stringValue), names.count == value.arrayValue?.count else {
                throw APIError.input(operation, "\(member)unset must be an array of field names")
            }
            unset = names
        }
        guard !set.isEmpty || !unset.isEmpty else { throw APIError.input(operation, "\(within)set or unset must name at least one field") }
        if let owned = (set.map(\.key) + unset).first(where: { reserved.contains($0) }) {
            throw APIError.input(operation, "\(within)\(owned) is a field the server owns and cannot be set or unset")
        }
        if let both = unset.first(where: { set[$0] != nil }) {
            throw APIError.input(operation, "\(within)\(both) is both set and unset")
        }
        self.set = set
        self.unset = unset
    }
}
