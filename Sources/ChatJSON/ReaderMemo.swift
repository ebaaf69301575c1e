import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Values one document's reader has made from text the document repeats, kept by that text
/// so that each is made once.
///
/// A `message.new` event carries its time three times (the event's `created_at`, the
/// message's `created_at` and `updated_at`, and often the sender's `last_active`) and the
/// sender twice (the message's `user` and the event's), each with its `created_at` and
/// `updated_at`: eight timestamps, three distinct. Parsing one costs about 370 instructions,
/// finding it here about 30. Its channel id is there twice too (the event's and the
/// message's `cid`), and reading one makes two strings: the last such pair of strings made
/// from one text is kept (``pair(_:make:)``).
@_spi(JSONEngine) public struct ReaderMemo {
    /// A value and the bytes it was made from (which live as long as the reader).
    @usableFromInline struct Entry<Value> {
        @usableFromInline var start: UnsafePointer<UInt8>
        @usableFromInline var count: Int
        @usableFromInline var value: Value

        @usableFromInline init(start: UnsafePointer<UInt8>, count: Int, value: Value) {
            self.start = start
            self.count = count
            self.value = value
        }

        @inline(__always)
        @inlinable func matches(_ other: UnsafeBufferPointer<UInt8>) -> Bool {
            count == other.count && memcmp(start, other.baseAddress!, count) == 0
        }
    }

    @usableFromInline var dates: (Entry<Date>?, Entry<Date>?, Entry<Date>?, Entry<Date>?) = (nil, nil, nil, nil)
    /// The date entry to replace next (oldest first).
    @usableFromInline var nextDate = 0
    @usableFromInline var lastPair: Entry<(String, String)>?

    /// The date written as `text`, parsed by `parse` the first time that text is seen.
    @inline(__always)
    @inlinable @_spi(JSONEngine) public mutating func date(_ text: UnsafeBufferPointer<UInt8>, parse: (UnsafeBufferPointer<UInt8>) -> Date?) -> Date? {
        guard let start = text.baseAddress else { return parse(text) }
        if let entry = dates.0, entry.matches(text) { return entry.value }
        if let entry = dates.1, entry.matches(text) { return entry.value }
        if let entry = dates.2, entry.matches(text) { return entry.value }
        if let entry = dates.3, entry.matches(text) { return entry.value }
        guard let date = parse(text) else { return nil }
        let entry = Entry(start: start, count: text.count, value: date)
        switch nextDate {
        case 0: dates.0 = entry
        case 1: dates.1 = entry
        case 2: dates.2 = entry
        default: dates.3 = entry
        }
        nextDate = (nextDate + 1) & 3
        return date
    }

    /// The two strings made from `text` (unescaped) by `make`, such as a channel id's type and
    /// id, unless `text` is the one they were last made from.
    @inline(__always)
    @inlinable @_spi(JSONEngine) public mutating func pair(_ text: UnsafeBufferPointer<UInt8>, make: () -> (String, String)?) -> (String, String)? {
        guard let start = text.baseAddress else { return make() }
        if let entry = lastPair, entry.matches(text) { return entry.value }
        guard let made = make() else { return nil }
        lastPair = Entry(start: start, count: text.count, value: made)
        return made
    }
}
