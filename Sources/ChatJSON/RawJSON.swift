/// A JSON value exactly as it travelled: objects keep their key order and numbers keep their
/// literal text, so custom fields and unknown attachments survive a decode → encode round trip.
///
/// This is the type of every `extraData` entry, the same vocabulary as Stream's `RawJSON`:
/// ```swift
/// payload.extraData = ["codec": .string("opus"), "bitrate": 96_000]
/// ```
public enum RawJSON: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, kept as its literal text so no precision is lost.
    case number(JSONNumber)
    /// A string.
    case string(String)
    /// An array.
    case array([RawJSON])
    /// An object, with its keys in their original order.
    case object(JSONObject)
}

extension RawJSON {
    /// The JSON type name of this value, as used in error messages ("string", "number", ...).
    public var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The boolean, if this is a boolean.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The number as an `Int`, if this is a number that is an integer within range.
    public var intValue: Int? {
        if case .number(let value) = self { return value.int }
        return nil
    }

    /// The number as a `Double`, if this is a finite number.
    public var doubleValue: Double? {
        if case .number(let value) = self { return value.double }
        return nil
    }

    /// The elements, if this is an array.
    public var arrayValue: [RawJSON]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The object, if this is an object.
    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The member named `key` when this is an object; `nil` otherwise.
    public subscript(key: String) -> RawJSON? {
        objectValue?[key]
    }
}

extension RawJSON: ExpressibleByStringLiteral {
    /// A string value.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension RawJSON: ExpressibleByIntegerLiteral {
    /// A number value.
    public init(integerLiteral value: Int) { self = .number(JSONNumber(value)) }
}

extension RawJSON: ExpressibleByFloatLiteral {
    /// A number value.
    public init(floatLiteral value: Double) { self = .number(JSONNumber(value)) }
}

extension RawJSON: ExpressibleByBooleanLiteral {
    /// A boolean value.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension RawJSON: ExpressibleByNilLiteral {
    /// `null`.
    public init(nilLiteral: ()) { self = .null }
}

extension RawJSON: ExpressibleByArrayLiteral {
    /// An array value.
    public init(arrayLiteral elements: RawJSON...) { self = .array(elements) }
}

extension RawJSON: ExpressibleByDictionaryLiteral {
    /// An object value, keys in the order written.
    public init(dictionaryLiteral elements: (String, RawJSON)...) {
        self = .object(JSONObject(elements))
    }
}

extension RawJSON: CustomStringConvertible {
    /// The compact JSON text of this value.
    public var description: String { JSONWriter.string(self) }
}
