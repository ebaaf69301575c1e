import ChatModels
import ChatTestSupport
import Foundation
import PropertyBased
import Testing

@Suite("Decoding never crashes")
struct PropertyBasedTests {
    /// Real events to mutate: the captured message.new (with every built-in attachment added),
    /// the health check and the connection error. Loaded per test rather than kept in a static,
    /// which LeakSanitizer reports as a leak when this suite runs under AddressSanitizer.
    static func seeds() -> [Data] {
        var seeds: [Data] = []
        if let attachments = try? Fixture.attachments(), let event = try? Fixture.messageNew(with: attachments) { seeds.append(event) }
        for name in ["message-new.json", "health-check.json", "connection-error.json"] {
            if let data = try? Fixture.data(name) { seeds.append(data) }
        }
        return seeds
    }

    static let interesting: [UInt8] = Array(#"{}[]":,\-0123456789.eE+tfnu"#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xFF]

    /// Applies random edits (replace, insert, delete, duplicate a span, truncate).
    static func mutate(_ data: Data, operations: [(kind: Int, position: Int, value: Int)]) -> Data {
        var bytes = [UInt8](data)
        for operation in operations where !bytes.isEmpty {
            let position = operation.position % bytes.count
            switch operation.kind % 5 {
            case 0: bytes[position] = interesting[operation.value % interesting.count]
            case 1: bytes.insert(interesting[operation.value % interesting.count], at: position)
            case 2: bytes.remove(at: position)
            case 3:
                let end = min(bytes.count, position + operation.value % 64)
                bytes.insert(contentsOf: bytes[position..<end], at: position)
            default: bytes.removeSubrange(position...)
            }
        }
        return Data(bytes)
    }

    @Test("randomly mutated real events decode or fail with an error")
    func mutatedEvents() async throws {
        let seeds = Self.seeds()
        try #require(seeds.count == 4)
        let operation = zip(Gen.int(in: 0...4), Gen.int(in: 0...100_000), Gen.int(in: 0...1_000))
        let operations = operation.array(of: 1...8)
        await propertyCheck(count: 2_000, input: Gen.int(in: 0...3), operations) { seedIndex, edits in
            let mutated = Self.mutate(seeds[seedIndex], operations: edits.map { (kind: $0.0, position: $0.1, value: $0.2) })
            do {
                let event = try Event.decode(frame: mutated)
                // Whatever decoded must be usable: classify and type the attachments.
                if let message = event.message {
                    _ = message.attachmentCounts
                    _ = message.decodeAttachments(payloadType: DocsWorkoutPayload.self)
                    _ = message.imageAttachments
                    _ = message.extraData
                    _ = message.json
                }
                _ = event.extraData
            } catch {
                let message = (error as? JSONError)?.message ?? ""
                #expect(!message.isEmpty, "every failure is a JSONError with a message: \(error)")
            }
        }
    }
}
