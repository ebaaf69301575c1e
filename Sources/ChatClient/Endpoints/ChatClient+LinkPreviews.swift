import ChatModels
import Foundation

extension ChatClient {
    /// The preview the service makes of `url` (`GET /og`): the page's Open Graph title,
    /// description, image and media, or the file itself for a link to an image, video or audio
    /// file. The same preview a message with that link gets as an attachment, unless it is sent
    /// with `skipEnrichURL`.
    public func enrichURL(_ url: URL) async throws -> LinkAttachmentPayload {
        let response = try await perform(.get("/og", query: [("url", url.absoluteString)], operation: "GetOG"))
        var preview = response
        preview["duration"] = nil
        do {
            return try RawJSONDecoder().decode(LinkAttachmentPayload.self, from: .object(preview))
        } catch {
            throw ChatClientError(code: .invalidResponse, message: "GetOG answered a preview of \(url.absoluteString) that cannot be read: \(error)")
        }
    }
}
