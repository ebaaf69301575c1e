#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Looks up an object key among a model's known keys by comparing bytes, without creating a
/// `String` for the key.
///
/// A perfect hash: each known key has a slot of its own, found from its length and its first
/// and last eight bytes, so a lookup is one probe and at most three word comparisons (and a
/// `memcmp` of the middle of keys over 16 bytes). It replaced a scan of the keys of the same
/// length, which cost about 70 instructions per member and read every member of every object.
@_spi(JSONEngine) public final class KeyTable<Key: RawRepresentable & CaseIterable & Sendable>: @unchecked Sendable where Key.RawValue == String {
    /// One slot: a key's length (0 when the slot is empty), its first and last eight bytes
    /// (little-endian, zero-padded), and where its bytes are kept for the middle comparison.
    @usableFromInline struct Slot {
        @_spi(JSONEngine) public var length = 0
        @_spi(JSONEngine) public var head: UInt64 = 0
        @_spi(JSONEngine) public var last: UInt64 = 0
        /// Bytes 8 to 15 and 16 to 23 of a key longer than 16 bytes (zero-padded past its last
        /// byte), so that keys up to 32 bytes compare as words.
        @_spi(JSONEngine) public var middle: (UInt64, UInt64) = (0, 0)
        @_spi(JSONEngine) public var bytes = 0
        @_spi(JSONEngine) public var key: Key?
    }

    // Written once in `init` and only read afterwards, which is what makes the table Sendable.
    @usableFromInline let slots: UnsafeMutablePointer<Slot>
    @usableFromInline let shift: UInt64
    @usableFromInline let multiplier: UInt64
    @usableFromInline let longest: Int
    @usableFromInline let keyBytes: [UInt8]
    /// The key names, for filtering custom fields.
    @_spi(JSONEngine) public let names: Set<String>

    @_spi(JSONEngine) public init() {
        let keys = Key.allCases.map { (key: $0, bytes: Array($0.rawValue.utf8)) }
        var keyBytes: [UInt8] = []
        var prepared: [Slot] = []
        for (key, bytes) in keys {
            prepared.append(
                Slot(
                    length: bytes.count, head: KeyTable.head(bytes), last: KeyTable.last(bytes),
                    middle: (KeyTable.head(bytes.dropFirst(8)), KeyTable.head(bytes.dropFirst(16))), bytes: keyBytes.count, key: key))
            keyBytes.append(contentsOf: bytes)
        }
        // The smallest table (at least twice the keys) and the first multiplier, from a fixed
        // sequence, that give every key a slot of its own; found in a few tries for our tables.
        var bits: UInt64 = 1
        while 1 << bits < 2 * max(prepared.count, 1) { bits += 1 }
        var generator: UInt64 = 0x9E37_79B9_7F4A_7C15
        var chosen: (bits: UInt64, multiplier: UInt64)?
        while chosen == nil {
            for _ in 0..<256 {
                generator = generator &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let multiplier = generator | 1
                var used = Set<UInt64>()
                let collisionFree = prepared.allSatisfy { slot in
                    used.insert(KeyTable.slot(slot.length, slot.head, slot.last, multiplier, 64 - bits)).inserted
                }
                if collisionFree {
                    chosen = (bits, multiplier)
                    break
                }
            }
            if chosen == nil { bits += 1 }
        }
        let (tableBits, multiplier) = chosen!
        let size = 1 << Int(tableBits)
        slots = .allocate(capacity: size)
        slots.initialize(repeating: Slot(), count: size)
        for slot in prepared {
            slots[Int(KeyTable.slot(slot.length, slot.head, slot.last, multiplier, 64 - tableBits))] = slot
        }
        self.shift = 64 - tableBits
        self.multiplier = multiplier
        self.longest = prepared.map(\.length).max() ?? 0
        self.keyBytes = keyBytes
        self.names = Set(Key.allCases.map(\.rawValue))
    }

    deinit {
        slots.deinitialize(count: 1 << Int(64 - shift))
        slots.deallocate()
    }

    /// The known key at `keyNode`, or nil for any other key. Inlined into each model's member
    /// loop, which calls it for every member.
    @inline(__always)
    @inlinable @_spi(JSONEngine) public func match(_ reader: JSONReader, _ keyNode: Int) -> Key? {
        guard let bytes = reader.keyBytes(keyNode) else {
            return (try? reader.string(keyNode)).flatMap(Key.init(rawValue:))
        }
        return match(bytes, readableUpTo: reader.documentEnd)
    }

    /// The known key whose bytes are `bytes`; up to `end`, bytes after them may be read (and
    /// are ignored), so that a key's first eight bytes are one load.
    @inline(__always)
    @inlinable @_spi(JSONEngine) public func match(_ bytes: UnsafeBufferPointer<UInt8>, readableUpTo end: UnsafePointer<UInt8>) -> Key? {
        let length = bytes.count
        guard length <= longest, let start = bytes.baseAddress else { return nil }
        let head = end - start >= 8 ? KeyTable.loadHead(start, length) : KeyTable.head(bytes)
        let last = length > 8 ? UInt64(littleEndian: UnsafeRawPointer(start + length - 8).loadUnaligned(as: UInt64.self)) : 0
        let slot = slots[Int(KeyTable.slot(length, head, last, multiplier, shift))]
        guard slot.length == length, slot.head == head, slot.last == last else { return nil }
        if length > 16 {
            guard length <= 32 else { return middleMatches(slot, start, length) ? slot.key : nil }
            // The key's bytes 8 to 23; past its end they are the last word's, already compared.
            let words = UnsafeRawPointer(start + 8)
            let second = UInt64(littleEndian: words.loadUnaligned(as: UInt64.self))
            guard second == slot.middle.0 else { return nil }
            if length > 24 {
                let third = UInt64(littleEndian: words.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
                guard third == slot.middle.1 else { return nil }
            }
        }
        return slot.key
    }

    /// Whether the middle of a key over 32 bytes, between its first and last eight, is the
    /// middle of `slot`'s key.
    @inline(never)
    @inlinable func middleMatches(_ slot: Slot, _ start: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        keyBytes.withUnsafeBufferPointer { known in
            memcmp(known.baseAddress! + slot.bytes + 8, start + 8, length - 16) == 0
        }
    }

    @inline(__always)
    @inlinable static func slot(_ length: Int, _ head: UInt64, _ last: UInt64, _ multiplier: UInt64, _ shift: UInt64) -> UInt64 {
        ((head ^ (last &* 0xFF51_AFD7_ED55_8CCD) ^ UInt64(truncatingIfNeeded: length)) &* multiplier) >> shift
    }

    /// The first eight bytes at `start`, of which `length` belong to the key, zero-padded.
    @inline(__always)
    @inlinable static func loadHead(_ start: UnsafePointer<UInt8>, _ length: Int) -> UInt64 {
        let loaded = UInt64(littleEndian: UnsafeRawPointer(start).loadUnaligned(as: UInt64.self))
        return length >= 8 ? loaded : loaded & ((1 &<< UInt64(length &* 8)) &- 1)
    }

    /// The first eight bytes, little-endian, zero-padded.
    @inline(__always)
    @usableFromInline static func head<C: Collection<UInt8>>(_ bytes: C) -> UInt64 {
        var head: UInt64 = 0
        var shift: UInt64 = 0
        for byte in bytes.prefix(8) {
            head |= UInt64(byte) << shift
            shift += 8
        }
        return head
    }

    /// The last eight bytes of a key longer than eight bytes, little-endian; 0 otherwise.
    @usableFromInline static func last(_ bytes: [UInt8]) -> UInt64 {
        guard bytes.count > 8 else { return 0 }
        return head(bytes[(bytes.count - 8)...])
    }
}
