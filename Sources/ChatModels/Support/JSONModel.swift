import Foundation

/// A wire type with a hand-written mapping to and from JSON.
///
/// Models keep every key they do not know as custom data (`extraData`), so custom fields
/// survive a decode → encode round trip. Their `Codable` conformance goes through this
/// mapping, so they work with any encoder or decoder too.
public protocol JSONModel: Sendable {
    /// Reads the model from JSON bytes; a wrong type in a known field is an error naming it.
    init(jsonData: Data) throws(JSONError)
    /// The model's JSON, custom fields flattened at the top level (the v1 wire form).
    var json: RawJSON { get }
}

extension JSONModel {
    /// Reads the model from a JSON tree.
    public init(json: RawJSON) throws(JSONError) {
        try self.init(jsonData: JSONWriter.data(json))
    }

    /// The model as compact JSON bytes.
    public var jsonData: Data { JSONWriter.data(json) }

    /// Reads the model through any `Decoder`.
    static func decoded(from decoder: any Decoder) throws -> Self {
        let raw = try RawJSON(from: decoder)
        do {
            return try Self(json: raw)
        } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: error.description, underlyingError: error))
        }
    }
}
