/// A field path used in error messages, built only when an error is reported.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    /// One step of a path.
    public enum Component: Sendable, Hashable {
        /// An object member.
        case key(String)
        /// An array element.
        case index(Int)
    }

    /// The steps from the document root.
    public private(set) var components: [Component]

    /// The document root.
    public static let root = JSONPath(components: [])

    /// A path from its steps.
    public init(components: [Component]) { self.components = components }

    /// This path extended by an object member.
    public func appending(_ key: String) -> JSONPath {
        var copy = self
        copy.components.append(.key(key))
        return copy
    }

    /// This path extended by an array index.
    public func appending(index: Int) -> JSONPath {
        var copy = self
        copy.components.append(.index(index))
        return copy
    }

    /// Dotted form: `message.attachments[2].workout-energy-cal`.
    public var description: String {
        var text = ""
        for component in components {
            switch component {
            case .key(let key):
                if !text.isEmpty { text += "." }
                text += key
            case .index(let index):
                text += "[\(index)]"
            }
        }
        return text
    }

    /// The path of a `Decoder`'s coding path.
    public init(codingPath: [any CodingKey]) {
        components = codingPath.map { key in
            if let index = key.intValue, key.stringValue.hasPrefix("Index ") || key.stringValue == String(index) {
                return .index(index)
            }
            return .key(key.stringValue)
        }
    }
}
