import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatModels
import ChatTransport
import Foundation
import Testing

@Suite("DeduplicatingCDNStorage's record file: the links of earlier uploads outlive the process")
struct UploadRecordTests {
    /// The record's entries as written (file names and links).
    static func entries(_ file: URL) throws -> [[String: Any]] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
        return object?["uploads"] as? [[String: Any]] ?? []
    }

    @Test("a storage made again on the same record (a restarted bot) links what the first uploaded; a deletion leaves the record too")
    func survivesARestart() async throws {
        try await TestChatServer.withServer { server in
            let scratch = try ScratchFolder("client")
            let record = scratch.path("state/uploads/coach.json")
            let report = try scratch.file("report.pdf", bytes: 200_000)
            let chart = try scratch.file("chart.png", bytes: 3_000)
            let before = server.client(as: "alice", cdnStorage: DeduplicatingCDNStorage(recordFile: record))
            try await before.queryChannel("messaging:files", members: ["alice"])
            let first = try await before.uploadAttachment(localFileURL: report, type: .file, to: "messaging:files")
            let picture = try await before.uploadAttachment(localFileURL: chart, type: .image, to: "messaging:files")
            #expect(try Self.entries(record).map { $0["file_name"] as? String } == ["report.pdf", "chart.png"])

            // As after a restart: a new storage, and a new client, on the same record.
            let http = RecordingHTTPTransport()
            let storage = DeduplicatingCDNStorage(recordFile: record)
            let after = server.client(as: "alice", http: http, cdnStorage: storage)
            let again = try await after.uploadAttachment(localFileURL: report, type: .file, to: "messaging:files")
            #expect(again.fileURL == first.fileURL)
            #expect(http.uploads == 0)
            #expect(http.count("HEAD", "/files/") == 1, "the kept link is checked before it is reused, as any other")
            #expect(storage.count == 2)

            try await after.deleteUpload(url: picture.fileURL, in: "messaging:files", isImage: true)
            #expect(try Self.entries(record).map { $0["file_name"] as? String } == ["report.pdf"])
            let third = server.client(as: "alice", http: http, cdnStorage: DeduplicatingCDNStorage(recordFile: record))
            let replaced = try await third.uploadAttachment(localFileURL: chart, type: .image, to: "messaging:files")
            #expect(replaced.fileURL != picture.fileURL)
            #expect(http.uploads == 1, "the deleted picture is uploaded again")
        }
    }

    @Test("a link the server no longer serves (its data was wiped) is uploaded again, and the record keeps the new link")
    func staleRecord() async throws {
        let scratch = try ScratchFolder("client")
        let record = scratch.path("uploads.json")
        let notes = try scratch.file("notes.txt", bytes: 2_000)
        let old = try await TestChatServer.withServer { server in
            let client = server.client(as: "alice", cdnStorage: DeduplicatingCDNStorage(recordFile: record))
            try await client.queryChannel("messaging:files", members: ["alice"])
            return try await client.uploadAttachment(localFileURL: notes, type: .file, to: "messaging:files").fileURL
        }
        try await TestChatServer.withServer { server in
            let http = RecordingHTTPTransport()
            let client = server.client(as: "alice", http: http, cdnStorage: DeduplicatingCDNStorage(recordFile: record))
            try await client.queryChannel("messaging:files", members: ["alice"])
            let fresh = try await client.uploadAttachment(localFileURL: notes, type: .file, to: "messaging:files")
            #expect(fresh.fileURL != old)
            #expect(http.uploads == 1)
            #expect(try Self.entries(record).map { $0["file_url"] as? String } == [fresh.fileURL.absoluteString])
        }
    }

    @Test("bad records: an unreadable one is kept aside as .unreadable and files are uploaded again; one that cannot be written keeps links in memory")
    func badRecords() async throws {
        try await TestChatServer.withServer { server in
            let scratch = try ScratchFolder("client")
            let notes = try scratch.file("notes.txt", bytes: 2_000)
            for garbage in ["not json", #"{"version":2,"uploads":[]}"#, #"{"version":1,"uploads":[{"sha256":"x"}]}"#] {
                let record = scratch.path("record-\(UUID().uuidString).json")
                try Data(garbage.utf8).write(to: record)
                let http = RecordingHTTPTransport()
                let client = server.client(as: "alice", http: http, cdnStorage: DeduplicatingCDNStorage(recordFile: record))
                try await client.queryChannel("messaging:files", members: ["alice"])
                _ = try await client.uploadAttachment(localFileURL: notes, type: .file, to: "messaging:files")
                #expect(http.uploads == 1, "\(garbage)")
                #expect(try String(contentsOf: record.appendingPathExtension("unreadable"), encoding: .utf8) == garbage)
                #expect(try Self.entries(record).count == 1, "a new record is written")
            }

            // Its folder would be inside a file: nothing can be written, and uploads still work and repeat once.
            let blocker = try scratch.file("blocker", bytes: 1)
            let http = RecordingHTTPTransport()
            let storage = DeduplicatingCDNStorage(recordFile: blocker.appendingPathComponent("uploads.json"))
            let client = server.client(as: "alice", http: http, cdnStorage: storage)
            let first = try await client.uploadAttachment(localFileURL: notes, type: .file, to: "messaging:files")
            let second = try await client.uploadAttachment(localFileURL: notes, type: .file, to: "messaging:files")
            #expect(first.fileURL == second.fileURL)
            #expect(http.uploads == 1)
        }
    }
}
