@_spi(JSONEngine) import ChatJSON
import ChatJSON
import Foundation

extension JSONReader {
    /// A channel id (`type:id`) read straight from the bytes.
    func readChannelId(_ node: Int) throws(JSONError) -> ChannelId {
        guard kind(node) == .string else { throw mismatch(node, expected: "a channel id string") }
        let entry = nodes[node]
        let start = Int(entry.start)
        let end = Int(entry.end)
        if !entry.flag {
            let text = UnsafeBufferPointer(start: base + start, count: end - start)
            let read = memo.pointee.pair(text) { () -> (String, String)? in
                var colon = start
                while colon < end, base[colon] != UInt8(ascii: ":") { colon += 1 }
                let type = UnsafeBufferPointer(start: base + start, count: colon - start)
                let id = UnsafeBufferPointer(start: base + colon + 1, count: max(0, end - colon - 1))
                guard colon < end, ChannelId.isValidPart(type), ChannelId.isValidPart(id) else { return nil }
                return (String(decoding: type, as: UTF8.self), String(decoding: id, as: UTF8.self))
            }
            if let (type, id) = read { return ChannelId(type: ChannelType(rawValue: type), id: id) }
        }
        do {
            return try ChannelId(cid: try string(node))
        } catch {
            throw JSONError.invalid(error.message)
        }
    }
}
