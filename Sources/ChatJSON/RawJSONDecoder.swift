import Foundation

/// Decodes `Decodable` types (attachment payloads, your own types) from JSON.
///
/// Reads straight from an index of the bytes: no intermediate tree and no strings for keys.
/// Numbers must fit the requested type and are never coerced from strings; `Date` is read from
/// an RFC 3339 string (fractional seconds optional) or Unix seconds, `URL` from a string.
/// Failures are the standard `DecodingError`s with the full coding path.
public struct RawJSONDecoder: Sendable {
    /// The deepest nesting accepted.
    public var maximumDepth = JSONParser.defaultMaximumDepth

    /// A decoder.
    public init() {}

    /// Decodes a value of `type` from JSON bytes.
    ///
    /// Inlinable, so that it is specialized for the caller's type: as a generic function it
    /// looked up `Optional<T>`'s metadata, copied the value through its witnesses and went
    /// through the generic path for every payload it decoded.
    @inlinable
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        var decoded: T?
        try withRootDecoder(for: data) { decoder in decoded = try decoder.decodeRoot(T.self) }
        return decoded!
    }

    /// Indexes `data` and runs `body` with a decoder on its root. A document that is not JSON
    /// is `DecodingError.dataCorrupted`; what `body` throws is thrown as it is.
    @usableFromInline
    func withRootDecoder(for data: Data, _ body: (IndexDecoder) throws -> Void) throws {
        var failure: (any Error)?
        do {
            try JSONReader.read(data, maximumDepth: maximumDepth) { reader throws(JSONError) in
                withUnsafePointer(to: reader) { reader in
                    do {
                        try body(IndexDecoder(reader: reader, node: 0, codingPath: []))
                    } catch {
                        failure = error
                    }
                }
            }
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: error.description, underlyingError: error))
        }
        if let failure { throw failure }
    }

    /// Decodes a value of `type` from a JSON tree.
    public func decode<T: Decodable>(_ type: T.Type, from json: RawJSON) throws -> T {
        try decode(type, from: JSONWriter.data(json))
    }
}
