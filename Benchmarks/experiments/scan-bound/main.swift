// An experiment, not part of the package: how much of ChatModels' JSON index is the index
// itself (the nodes it writes and that the readers then follow), and how much is the scan that
// validates the bytes, which any decoder reading straight from the bytes (a "fused" decoder
// with no index) would still have to do.
//
// `run.sh` compiles this file with every ChatModels source and with `SkipBuilder`, a copy of
// the index builder generated from JSONIndex.swift whose node buffer keeps only the last
// 512 node kinds (the grammar checks read the kind of the open container) and writes nothing
// else. Both then scan the same corpus, and Event.decode runs on it for scale.
import Foundation

/// What `SkipBuilder` appends to instead of a node buffer: the kinds of the last 512 nodes,
/// in a ring, which is all the grammar checks read back.
struct SkipCounter {
    var count = 0
    let kinds: UnsafeMutablePointer<JSONNode.Kind>

    @inline(__always)
    mutating func append(_ node: JSONNode) {
        kinds[count & 511] = node.kind
        count &+= 1
    }

    @inline(__always)
    subscript(position: Int) -> JSONNode {
        get { JSONNode(kind: kinds[position & 511], flag: false, start: 0, end: 0, next: 0) }
        nonmutating set {}
    }
}

@main
enum ScanBound {
    static func main() throws {
        let path = CommandLine.arguments[1]
        let rounds = CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) ?? 20 : 20
        let lines = try Data(contentsOf: URL(fileURLWithPath: path)).split(separator: 0x0A).map { Data($0) }
        let kinds = UnsafeMutablePointer<JSONNode.Kind>.allocate(capacity: 512)
        defer { kinds.deallocate() }
        // Best of `rounds` passes over the corpus, in microseconds per event.
        func best(_ body: (Data) -> Int) -> Double {
            var best = Double.infinity
            var checksum = 0
            for _ in 0..<rounds {
                let start = DispatchTime.now().uptimeNanoseconds
                for line in lines { checksum &+= body(line) }
                best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start))
            }
            precondition(checksum > 0, "every event must scan")
            return best / Double(lines.count) / 1000
        }
        let index = best { line in (try? JSONReader.read(line) { $0.nodes.count }) ?? 0 }
        let scan = best { line in
            var counter = SkipCounter(kinds: kinds)
            return line.withUnsafeBytes { bytes in
                (try? SkipBuilder(bytes: bytes, maximumDepth: JSONParser.defaultMaximumDepth).run(into: &counter)) != nil ? counter.count : 0
            }
        }
        let decode = best { line in (try? Event.decode(frame: line))?.message?.attachments.count ?? 0 }
        print(
            String(
                format: "per event: index %.3f us, the same scan writing no nodes %.3f us (nodes %.3f us), whole Event.decode %.3f us",
                index, scan, index - scan, decode))
    }
}
