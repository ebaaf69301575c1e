import Foundation

/// A model that reads itself straight from an indexed document.
package protocol ReaderDecodable {
    init(reader: JSONReader, node: Int) throws(JSONError)

    /// Reads the model at `node` (nil for `null`) into `slot`, a field of the model being read.
    /// A model whose returned value the optimizer copies field by field on the way out (see
    /// `User`) fills the slot in place instead.
    static func read(into slot: inout Self?, _ reader: JSONReader, _ node: Int) throws(JSONError)
}

extension ReaderDecodable {
    package static func read(into slot: inout Self?, _ reader: JSONReader, _ node: Int) throws(JSONError) {
        slot = reader.isNull(node) ? nil : try Self(reader: reader, node: node)
    }

    /// Indexes `data` and reads the model from its root.
    package static func read(_ data: Data) throws(JSONError) -> Self {
        try JSONReader.read(data) { reader throws(JSONError) in try Self(reader: reader, node: 0) }
    }
}
