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

/// A model that reads itself straight from an indexed document.
protocol ReaderDecodable {
    init(reader: JSONReader, node: Int) throws(JSONError)

    /// Reads the model at `node` (nil for `null`) into `slot`, a field of the model being read.
    /// A model whose returned value the optimizer copies field by field on the way out (see
    /// `User`) fills the slot in place instead.
    static func read(into slot: inout Self?, _ reader: JSONReader, _ node: Int) throws(JSONError)
}

extension ReaderDecodable {
    static func read(into slot: inout Self?, _ reader: JSONReader, _ node: Int) throws(JSONError) {
        slot = reader.isNull(node) ? nil : try Self(reader: reader, node: node)
    }

    /// Indexes `data` and reads the model from its root.
    static func read(_ data: Data) throws(JSONError) -> Self {
        try JSONReader.read(data) { reader throws(JSONError) in try Self(reader: reader, node: 0) }
    }
}
