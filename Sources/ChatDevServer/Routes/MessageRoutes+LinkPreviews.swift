import ChatModels
import Foundation
import Hummingbird
import Logging

extension MessageRoutes {
    /// `GET /og?url=`: the preview of a link, as a message with that link would get it.
    func openGraph(_ request: Request) async throws -> JSONReply {
        let operation = "GetOG"
        _ = try await state.authenticate(request)
        guard let text = request.query("url"), !text.isEmpty else { throw APIError.input(operation, "url is a required parameter") }
        do {
            let url = try LinkScraper.checkScrapable(text).get()
            return JSONReply(try await state.enricher.scraper.preview(of: url))
        } catch {
            throw APIError.input(operation, error.description)
        }
    }

    /// With `async_url_enrich_enabled`: fetches the preview of message `id`'s link after the
    /// answer, adds it, and sends `message.updated`, unless the message has changed meanwhile.
    func addPreviewLater(to id: String, renderer: Renderer) {
        state.background.start { [state] in
            guard let stored = try? await state.store.read({ db in try MessagesTable.fetch(db, id) }),
                let link = URLEnricher.linkToPreview(stored.data),
                let preview = await state.enricher.preview(of: link), !Task.isCancelled
            else { return }
            do {
                let now = state.clock.now()
                let events = try await state.store.write { db -> [PendingEvent] in
                    guard var message = try MessagesTable.fetch(db, id), message.deletedAt == nil,
                        URLEnricher.linkToPreview(message.data) == link
                    else { return [] }
                    message.data = URLEnricher.applying(preview, to: message.data, isEdit: false)
                    message.updatedAt = now
                    try MessagesTable.update(db, message)
                    return [try MessageRoutes.updated(message, viewer: nil, renderer: renderer, at: now, in: db).1]
                }
                await state.publish(events)
            } catch {
                state.logger.warning("a link preview could not be stored", metadata: ["message": "\(id)", "error": "\(error)"])
            }
        }
    }
}
