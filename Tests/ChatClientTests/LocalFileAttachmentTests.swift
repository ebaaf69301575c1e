import ChatClient
import ChatModels
import Foundation
import Testing
import WorkoutBot

/// Attachments made from local files (the client reads their size, type and media headers).
@Suite("Local file attachments")
struct LocalFileAttachmentTests {
    @Test("local files record their size and a guessed MIME type")
    func localFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("chart.png")
        try Data(repeating: 7, count: 1234).write(to: file)

        let image = try AnyAttachmentPayload(localFileURL: file, attachmentType: .image)
        #expect(image.localFileURL == file)
        #expect(image.uploadingState?.fileSize == 1234)
        #expect(image.uploadingState?.mimeType == "image/png")
        #expect((image.payload as? ImageAttachmentPayload)?.title == "chart.png")

        let custom = try AnyAttachmentPayload(localFileURL: file, customPayload: WorkoutAttachmentPayload(workoutType: "run"))
        #expect(custom.type == .workout && custom.uploadingState?.fileSize == 1234)

        #expect {
            _ = try AnyAttachmentPayload(localFileURL: folder.appendingPathComponent("missing.png"), attachmentType: .image)
        } throws: { ($0 as? AttachmentFileError)?.code == .fileNotFound }
        #expect {
            _ = try AnyAttachmentPayload(localFileURL: folder, attachmentType: .file)
        } throws: { ($0 as? AttachmentFileError)?.code == .notAFile }
        #expect {
            _ = try AnyAttachmentPayload(localFileURL: file, attachmentType: .giphy)
        } throws: { ($0 as? AttachmentFileError)?.code == .unsupportedUploadType }
    }
}
