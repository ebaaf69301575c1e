// An experiment, not part of the package: the first stage of a simdjson-style JSON index in
// Swift, to see what it would cost on our corpus before rewriting ChatModels' index around it.
// It classifies each 64-byte block into bitmasks (quotes, backslashes, operators, separators,
// control and non-ASCII bytes), finds the strings with a prefix XOR, and writes the position of
// every structural character. It does not build nodes or check the grammar (that would be
// stage 2), so its cost is a lower bound for any index built this way.
//
// `pmovmskb` is reached through Clang's builtin intrinsics module; pure Swift has no way to
// turn a SIMD comparison into a bitmask in one instruction. Run with `run.sh` next to this file.
import Foundation
import _Builtin_intrinsics.intel

/// The block's bytes of each class, one bit per byte.
struct BlockMasks {
    var quotes: UInt64 = 0
    var backslashes: UInt64 = 0
    var operators: UInt64 = 0
    /// Operators, whitespace and quotes: what ends a number or a literal.
    var separators: UInt64 = 0
    /// Control characters and non-ASCII bytes (below 0x20 as signed bytes).
    var low: UInt64 = 0
}

@inline(__always)
func bitmask(_ mask: SIMDMask<SIMD16<Int8>>) -> UInt64 {
    UInt64(UInt32(bitPattern: _mm_movemask_epi8(unsafeBitCast(mask, to: __m128i.self))))
}

@inline(__always)
func classify(_ block: UnsafePointer<UInt8>) -> BlockMasks {
    var masks = BlockMasks()
    for part in 0..<4 {
        let bytes = UnsafeRawPointer(block + 16 * part).loadUnaligned(as: SIMD16<UInt8>.self)
        let quote = bytes .== SIMD16<UInt8>(repeating: 0x22)
        let backslash = bytes .== SIMD16<UInt8>(repeating: 0x5C)
        // `{` `}` and `[` `]` differ from each other only in bit 0x20.
        let folded = bytes | SIMD16<UInt8>(repeating: 0x20)
        let operators = (folded .== SIMD16<UInt8>(repeating: 0x7B)) .| (folded .== SIMD16<UInt8>(repeating: 0x7D))
            .| (bytes .== SIMD16<UInt8>(repeating: 0x3A)) .| (bytes .== SIMD16<UInt8>(repeating: 0x2C))
        let whitespace = (bytes .== SIMD16<UInt8>(repeating: 0x20)) .| (bytes .== SIMD16<UInt8>(repeating: 0x0A))
            .| (bytes .== SIMD16<UInt8>(repeating: 0x0D)) .| (bytes .== SIMD16<UInt8>(repeating: 0x09))
        let low = unsafeBitCast(bytes, to: SIMD16<Int8>.self) .< SIMD16<Int8>(repeating: 0x20)
        let shift = UInt64(16 * part)
        masks.quotes |= bitmask(quote) << shift
        masks.backslashes |= bitmask(backslash) << shift
        masks.operators |= bitmask(operators) << shift
        masks.separators |= bitmask(operators .| whitespace .| quote) << shift
        masks.low |= bitmask(low) << shift
    }
    return masks
}

/// Bit i of the result is the XOR of bits 0...i: set inside strings (opening quote included).
@inline(__always)
func prefixXOR(_ bits: UInt64) -> UInt64 {
    var value = bits
    for shift: UInt64 in [1, 2, 4, 8, 16, 32] { value ^= value << shift }
    return value
}

/// Writes the position of every structural character of `bytes` to `positions`; returns how
/// many, or -1 for a control character inside a string.
@inline(never)
func stage1(_ bytes: UnsafeBufferPointer<UInt8>, _ positions: UnsafeMutablePointer<UInt32>, _ tail: UnsafeMutablePointer<UInt8>) -> Int {
    let base = bytes.baseAddress!
    var count = 0
    var inString: UInt64 = 0
    var previousScalar: UInt64 = 0
    var escapeCarry: UInt64 = 0
    var offset = 0
    while offset < bytes.count {
        let masks: BlockMasks
        if offset + 64 <= bytes.count {
            masks = classify(base + offset)
        } else {
            // The last partial block, padded with spaces.
            tail.update(repeating: 0x20, count: 64)
            tail.update(from: base + offset, count: bytes.count - offset)
            masks = classify(tail)
        }
        // Escaped characters: rare, so found bit by bit.
        var escaped = escapeCarry
        escapeCarry = 0
        var backslashes = masks.backslashes & ~escaped
        while backslashes != 0 {
            let bit = UInt64(backslashes.trailingZeroBitCount)
            if bit == 63 {
                escapeCarry = 1
            } else {
                escaped |= 1 << (bit + 1)
                backslashes &= ~(1 << (bit + 1))
            }
            backslashes &= backslashes &- 1
        }
        let quotes = masks.quotes & ~escaped
        let strings = prefixXOR(quotes) ^ inString
        inString = UInt64(bitPattern: Int64(bitPattern: strings) >> 63)
        if masks.low & strings != 0 {
            // A control character or a non-ASCII byte in a string: the real index would check
            // UTF-8 here. The corpus is ASCII.
            return -1
        }
        let scalars = ~masks.separators & ~strings
        let scalarStarts = scalars & ~((scalars << 1) | previousScalar)
        previousScalar = scalars >> 63
        var structurals = (masks.operators & ~strings) | quotes | scalarStarts
        let blockStart = UInt32(truncatingIfNeeded: offset)
        while structurals != 0 {
            positions[count] = blockStart &+ UInt32(truncatingIfNeeded: structurals.trailingZeroBitCount)
            count &+= 1
            structurals &= structurals &- 1
        }
        offset &+= 64
    }
    return count
}

let arguments = CommandLine.arguments
let events = try Data(contentsOf: URL(fileURLWithPath: arguments[1])).split(separator: 0x0A).map { Array($0) }
let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 20 : 20
let positions = UnsafeMutablePointer<UInt32>.allocate(capacity: (events.map(\.count).max() ?? 0) + 64)
let tail = UnsafeMutablePointer<UInt8>.allocate(capacity: 64)
var structurals = 0
let clock = ContinuousClock()
let start = clock.now
for _ in 0..<rounds {
    for event in events { structurals &+= event.withUnsafeBufferPointer { stage1($0, positions, tail) } }
}
let elapsed = clock.now - start
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
print(
    String(
        format: "stage 1 alone: %d structural characters per event, %.2f us per event",
        structurals / rounds / events.count, seconds * 1e6 / Double(rounds * events.count)))
