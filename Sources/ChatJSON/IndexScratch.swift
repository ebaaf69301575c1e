#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The memory an index is built in, kept per thread between documents.
///
/// Indexing one event used to allocate its node array and its stack of open containers and
/// free them when read: two `malloc`s of over 1 KB each, past the allocator's per-thread
/// cache, for every event and every attachment payload decoded. A thread now keeps the last
/// pair it used (up to ``largestKept`` nodes); an index built while another is alive on the
/// same thread (a payload decoded inside a reader) gets a pair of its own.
enum IndexScratch {
    /// A node array and a stack of open containers, with their capacities.
    struct Buffers {
        package var nodes: UnsafeMutablePointer<JSONNode>
        var nodeCapacity: Int
        var open: UnsafeMutablePointer<UInt32>
        var openCapacity: Int
    }

    /// What one thread keeps: a pair of buffers, or nil while an index is using them.
    private struct Shelf {
        var buffers: Buffers?
    }

    /// Buffers above this many nodes (1 MiB) are freed rather than kept.
    static let largestKept = 1 << 16

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { raw in
            #if canImport(Darwin)
            let raw: UnsafeMutableRawPointer? = raw
            #endif
            guard let shelf = raw?.assumingMemoryBound(to: Shelf.self) else { return }
            if let buffers = shelf.pointee.buffers { free(buffers) }
            shelf.deinitialize(count: 1)
            shelf.deallocate()
        }
        precondition(status == 0, "pthread_key_create failed (\(status)): the process is out of thread-specific keys")
        return key
    }()

    /// Buffers holding at least `nodes` nodes and `depth` open containers: the thread's own
    /// when it has them, new ones otherwise.
    @inline(__always)
    package static func take(nodes: Int, depth: Int) -> Buffers {
        guard let shelf = pthread_getspecific(key)?.assumingMemoryBound(to: Shelf.self), var buffers = shelf.pointee.buffers else {
            return Buffers(
                nodes: .allocate(capacity: nodes), nodeCapacity: nodes, open: .allocate(capacity: depth), openCapacity: depth)
        }
        shelf.pointee.buffers = nil
        if buffers.nodeCapacity < nodes {
            buffers.nodes.deallocate()
            buffers.nodes = .allocate(capacity: nodes)
            buffers.nodeCapacity = nodes
        }
        if buffers.openCapacity < depth {
            buffers.open.deallocate()
            buffers.open = .allocate(capacity: depth)
            buffers.openCapacity = depth
        }
        return buffers
    }

    /// Returns buffers from ``take(nodes:depth:)``: the thread keeps them when it has none
    /// and they are not too large; otherwise they are freed.
    @inline(__always)
    static func giveBack(nodes: UnsafeMutablePointer<JSONNode>, capacity: Int, open: UnsafeMutablePointer<UInt32>, capacity openCapacity: Int) {
        let buffers = Buffers(nodes: nodes, nodeCapacity: capacity, open: open, openCapacity: openCapacity)
        guard capacity <= largestKept else { return free(buffers) }
        if let shelf = pthread_getspecific(key)?.assumingMemoryBound(to: Shelf.self) {
            guard shelf.pointee.buffers == nil else { return free(buffers) }
            shelf.pointee.buffers = buffers
            return
        }
        let shelf = UnsafeMutablePointer<Shelf>.allocate(capacity: 1)
        shelf.initialize(to: Shelf(buffers: buffers))
        if pthread_setspecific(key, shelf) != 0 {
            shelf.deinitialize(count: 1)
            shelf.deallocate()
            free(buffers)
        }
    }

    private static func free(_ buffers: Buffers) {
        buffers.nodes.deallocate()
        buffers.open.deallocate()
    }
}
