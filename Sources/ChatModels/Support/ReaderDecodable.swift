@_spi(JSONEngine) import ChatJSON
import Foundation

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

extension JSONReader {
    func readModel<M: ReaderDecodable>(_ type: M.Type, _ node: Int) throws(JSONError) -> M {
        try M(reader: self, node: node)
    }

    func readOptionalModel<M: ReaderDecodable>(_ type: M.Type, _ node: Int) throws(JSONError) -> M? {
        isNull(node) ? nil : try M(reader: self, node: node)
    }

    /// The model at `node` (nil for `null`) read into `slot`, in place where the model can.
    func readOptionalModel<M: ReaderDecodable>(into slot: inout M?, _ node: Int) throws(JSONError) {
        try M.read(into: &slot, self, node)
    }

    func readModels<M: ReaderDecodable>(_ type: M.Type, _ node: Int) throws(JSONError) -> [M] {
        if isNull(node) { return [] }
        guard kind(node) == .array else { throw mismatch(node, expected: "an array") }
        var models: [M] = []
        var position = 0
        for element in elements(node) {
            do {
                models.append(try M(reader: self, node: element))
            } catch {
                throw error.prefixed(index: position)
            }
            position += 1
        }
        return models
    }
}
