import Foundation

/// A coding key for dynamic object members and array positions.
public struct AnyCodingKey: CodingKey, Hashable, Sendable {
    /// The key's text.
    public let stringValue: String
    /// The array index, for unkeyed positions.
    public let intValue: Int?
    /// A key from a string.
    public init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }
    /// A key from an array index.
    public init(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
    /// A key from a string.
    public init(_ string: String) { self.init(stringValue: string) }
}
