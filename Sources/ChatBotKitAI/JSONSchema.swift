import ChatModels

/// The JSON schema of a tool's arguments, as models are shown it: objects with typed
/// properties, arrays, strings (with allowed values), numbers, integers and booleans.
///
/// Derive it from the arguments' Swift type (``derived(from:)``), or declare it beside the type
/// with descriptions for the model, and test that the two agree (``differences(from:at:)``).
public struct JSONSchema: Sendable, Hashable {
    /// A JSON type.
    public enum Kind: String, Sendable, Hashable {
        /// `"string"`.
        case string
        /// `"integer"`.
        case integer
        /// `"number"`.
        case number
        /// `"boolean"`.
        case boolean
        /// `"object"`.
        case object
        /// `"array"`.
        case array
    }

    /// One property of an object.
    public struct Property: Sendable, Hashable {
        /// Its name.
        public var name: String
        /// Its schema.
        public var schema: JSONSchema
        /// Whether it must be there.
        public var isRequired: Bool

        /// A property.
        public init(_ name: String, _ schema: JSONSchema, required: Bool = true) {
            self.name = name
            self.schema = schema
            isRequired = required
        }
    }

    /// The type.
    public var kind: Kind
    /// What it is, for the model.
    public var description: String?
    /// An object's properties, in order.
    public var properties: [Property]
    /// An array's elements' schema (one, or none when unknown).
    public var items: [JSONSchema]
    /// A string's allowed values, if limited.
    public var allowedValues: [String]?
    /// A string's format (`date-time`, `uri`).
    public var format: String?

    /// A schema.
    public init(
        _ kind: Kind, description: String? = nil, properties: [Property] = [], items: JSONSchema? = nil, allowedValues: [String]? = nil,
        format: String? = nil
    ) {
        self.kind = kind
        self.description = description
        self.properties = properties
        self.items = items.map { [$0] } ?? []
        self.allowedValues = allowedValues
        self.format = format
    }

    /// An object with `properties`.
    public static func object(_ properties: [Property], description: String? = nil) -> JSONSchema {
        JSONSchema(.object, description: description, properties: properties)
    }

    /// A string, limited to `allowedValues` if given.
    public static func string(_ description: String? = nil, allowedValues: [String]? = nil) -> JSONSchema {
        JSONSchema(.string, description: description, allowedValues: allowedValues)
    }

    /// An integer.
    public static func integer(_ description: String? = nil) -> JSONSchema { JSONSchema(.integer, description: description) }
    /// A number.
    public static func number(_ description: String? = nil) -> JSONSchema { JSONSchema(.number, description: description) }
    /// A boolean.
    public static func boolean(_ description: String? = nil) -> JSONSchema { JSONSchema(.boolean, description: description) }
    /// An array of `items`.
    public static func array(of items: JSONSchema, description: String? = nil) -> JSONSchema {
        JSONSchema(.array, description: description, items: items)
    }

    /// The schema as JSON.
    public var json: RawJSON {
        var object: JSONObject = ["type": .string(kind.rawValue)]
        if let description { object["description"] = .string(description) }
        if kind == .object {
            object["properties"] = .object(JSONObject(properties.map { ($0.name, $0.schema.json) }))
            object["required"] = .array(properties.filter(\.isRequired).map { .string($0.name) })
            object["additionalProperties"] = false
        }
        if let items = items.first { object["items"] = items.json }
        if let allowedValues { object["enum"] = .array(allowedValues.map(RawJSON.string)) }
        if let format { object["format"] = .string(format) }
        return .object(object)
    }

    /// Where `other` differs from this schema in what a decoder cares about (types, property
    /// names, which are required, allowed values; not descriptions), as `path: what` lines;
    /// empty when they agree.
    public func differences(from other: JSONSchema, at path: String = "arguments") -> [String] {
        guard kind == other.kind else { return ["\(path): \(kind.rawValue) here, \(other.kind.rawValue) there"] }
        var found: [String] = []
        if (allowedValues ?? []).sorted() != (other.allowedValues ?? []).sorted() {
            found.append("\(path): allowed values \(allowedValues ?? []) here, \(other.allowedValues ?? []) there")
        }
        for property in properties {
            guard let theirs = other.properties.first(where: { $0.name == property.name }) else {
                found.append("\(path).\(property.name): only here")
                continue
            }
            if property.isRequired != theirs.isRequired {
                found.append("\(path).\(property.name): \(property.isRequired ? "required" : "optional") here, \(theirs.isRequired ? "required" : "optional") there")
            }
            found += property.schema.differences(from: theirs.schema, at: "\(path).\(property.name)")
        }
        for theirs in other.properties where !properties.contains(where: { $0.name == theirs.name }) {
            found.append("\(path).\(theirs.name): only there")
        }
        if let mine = items.first, let theirs = other.items.first { found += mine.differences(from: theirs, at: "\(path)[]") }
        return found
    }
}
