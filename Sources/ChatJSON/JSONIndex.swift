/// One value in a ``JSONIndex``: its kind and where its bytes are. Containers also record the
/// node after their last descendant, so siblings can be skipped in one step.
@_spi(JSONEngine) public struct JSONNode {
    @_spi(JSONEngine) public enum Kind: UInt8 {
        case null, bool, number, string, array, object
    }

    @_spi(JSONEngine) public var kind: Kind
    /// For strings: the text contains escapes. For booleans: the value.
    @_spi(JSONEngine) public var flag: Bool
    /// First byte (for strings, the byte after the opening quote).
    @_spi(JSONEngine) public var start: UInt32
    /// One past the last byte (for strings, the closing quote).
    @_spi(JSONEngine) public var end: UInt32
    /// The index of the next node that is not inside this one.
    @_spi(JSONEngine) public var next: UInt32
}

/// A structural index of a JSON document: one pass over the bytes validates them and records
/// every value's kind and byte range in a flat array, without creating any strings.
///
/// Values are then read on demand, so a decoder only pays for the fields it asks for (custom
/// fields and attachments stay bytes until someone reads them). The node array and the stack
/// of open containers come from the thread's ``IndexScratch`` and go back to it, so indexing
/// allocates nothing once the thread has indexed a document of that size.
package struct JSONIndex: ~Copyable {
    private var storage: NodeBuffer
    private let open: UnsafeMutablePointer<UInt32>
    private let openCapacity: Int

    /// Indexes `bytes`, validating them against RFC 8259.
    package init(bytes: UnsafeRawBufferPointer, maximumDepth: Int) throws(JSONError) {
        guard bytes.count < Int(UInt32.max) else {
            throw JSONError(code: .syntax, message: "documents over 4 GiB are not supported")
        }
        // Up to `reservedLimit` bytes, room for as many nodes as the document can hold is taken
        // up front, so that appending a node needs no capacity check (the check and the spills
        // around it were about a twentieth of indexing); larger documents grow their array.
        // Nothing nests deeper than the document has bytes, so a limit above that (or below
        // zero) changes nothing but the size of the stack of open containers and of the node
        // bound, which it would overflow (`Int.max`) or make negative.
        let depthLimit = min(max(maximumDepth, 0), bytes.count)
        let reserved = bytes.count <= JSONIndex.reservedLimit
        let scratch = IndexScratch.take(
            nodes: reserved ? JSONIndex.nodeBound(bytes: bytes.count, maximumDepth: depthLimit) : max(16, bytes.count / 10),
            depth: depthLimit + 1)
        var nodes = NodeBuffer(base: scratch.nodes, capacity: scratch.nodeCapacity)
        do {
            if reserved {
                try IndexBuilder<ReservedCapacity>(bytes: bytes, maximumDepth: depthLimit).run(into: &nodes, open: scratch.open)
            } else {
                try IndexBuilder<GrowingCapacity>(bytes: bytes, maximumDepth: depthLimit).run(into: &nodes, open: scratch.open)
            }
        } catch {
            IndexScratch.giveBack(nodes: nodes.base, capacity: nodes.capacity, open: scratch.open, capacity: scratch.openCapacity)
            throw error
        }
        storage = nodes
        open = scratch.open
        openCapacity = scratch.openCapacity
    }

    /// The largest document whose node array is reserved whole before indexing (512 KiB of
    /// nodes at most).
    static let reservedLimit = 64 * 1024

    /// The most nodes indexing `bytes` bytes can append, valid or not.
    ///
    /// In a complete document each node but the root is followed by a separator or closes its
    /// container, and each container takes two brackets, so `n` bytes hold at most `(n + 1) / 2`
    /// nodes. Input cut short or broken off by an error can leave up to `maximumDepth`
    /// containers open, whose closing brackets are missing, and one key without its value.
    static func nodeBound(bytes: Int, maximumDepth: Int) -> Int { (bytes + maximumDepth) / 2 + 4 }

    deinit { IndexScratch.giveBack(nodes: storage.base, capacity: storage.capacity, open: open, capacity: openCapacity) }

    /// The nodes, in document order (valid while the index lives).
    package var nodes: UnsafeBufferPointer<JSONNode> { UnsafeBufferPointer(start: storage.base, count: storage.count) }
}

/// A growable array of nodes without Array's per-append bookkeeping: indexing appends one node
/// every dozen bytes, and this is the index's inner loop.
struct NodeBuffer {
    private(set) var base: UnsafeMutablePointer<JSONNode>
    private(set) var count = 0
    private(set) var capacity: Int

    /// A buffer filling `base`, which holds `capacity` nodes; growing replaces it.
    package init(base: UnsafeMutablePointer<JSONNode>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    /// Appends `node`; `reserved` says the capacity was checked for the whole document.
    @inline(__always)
    package mutating func append(_ node: JSONNode, reserved: Bool = false) {
        if !reserved, count == capacity { grow() }
        (base + count).initialize(to: node)
        count &+= 1
    }

    @inline(__always)
    package subscript(position: Int) -> JSONNode {
        get { base[position] }
        nonmutating set { base[position] = newValue }
    }

    @inline(never)
    private mutating func grow() {
        let larger = UnsafeMutablePointer<JSONNode>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = larger
        capacity *= 2
    }
}
