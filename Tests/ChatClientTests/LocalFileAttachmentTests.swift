import ChatClient
import ChatTestSupport
import ChatModels
import Foundation
import Testing

/// Attachments made from local files (the client reads their size, type and media headers).
@Suite("Local file attachments")
struct LocalFileAttachmentTests {
    @Test("local files record their size and a guessed MIME type")
    func localFiles() throws {
        let scratch = try ScratchFolder("local-files")
        let file = try scratch.write(Data(repeating: 7, count: 1234), as: "chart.png")

        let image = try AnyAttachmentPayload(localFileURL: file, attachmentType: .image)
        #expect(image.localFileURL == file)
        #expect(image.uploadingState?.fileSize == 1234)
        #expect(image.uploadingState?.mimeType == "image/png")
        #expect((image.payload as? ImageAttachmentPayload)?.title == "chart.png")

        let custom = try AnyAttachmentPayload(localFileURL: file, customPayload: DocsWorkoutPayload(workoutType: "run"))
        #expect(custom.type == DocsWorkoutPayload.type && custom.uploadingState?.fileSize == 1234)

        #expect {
            _ = try AnyAttachmentPayload(localFileURL: scratch.path("missing.png"), attachmentType: .image)
        } throws: { ($0 as? AttachmentFileError)?.code == .fileNotFound }
        #expect {
            _ = try AnyAttachmentPayload(localFileURL: scratch.url, attachmentType: .file)
        } throws: { ($0 as? AttachmentFileError)?.code == .notAFile }
        #expect {
            _ = try AnyAttachmentPayload(localFileURL: file, attachmentType: .giphy)
        } throws: { ($0 as? AttachmentFileError)?.code == .unsupportedUploadType }
    }
}
