import ChatModels
import Foundation
import Logging

/// URL enrichment: the preview attachment of the first link in a message's text, as the hosted
/// service adds it (`og_scrape_url` marks it, so clients classify it as a link preview).
struct URLEnricher: Sendable {
    /// When enrichment happens, from the server's configuration, the request and the app settings.
    enum Mode: Equatable {
        /// Not at all: switched off, or `skip_enrich_url` on the request.
        case off
        /// Before the answer (the app's `async_url_enrich_enabled` is false, the default).
        case beforeAnswering
        /// After the answer, followed by `message.updated` (`async_url_enrich_enabled` true).
        case afterAnswering
    }

    let scraper: LinkScraper
    let logger: Logger

    /// The first http(s) link of `text`; the hosted service enriches only that one. Trailing
    /// punctuation is not part of it, nor is a closing bracket it did not open.
    static func firstLink(in text: String) -> URL? {
        var rest = Substring(text)
        while let start = rest.range(of: "http", options: .caseInsensitive) {
            defer { rest = rest[start.upperBound...] }
            if start.lowerBound > rest.startIndex {
                let before = rest[rest.index(before: start.lowerBound)]
                guard !before.isLetter, !before.isNumber else { continue }
            }
            var candidate = rest[start.lowerBound...].prefix { !$0.isWhitespace && !"<>\"`".contains($0) }
            while let last = candidate.last, ".,;:!?'*_".contains(last) || (")]}".contains(last) && !opens(candidate, last)) {
                candidate = candidate.dropLast()
            }
            // The candidate starts with "http", so a URL with a web scheme and a host is an http(s) link.
            guard case .success(let url) = LinkScraper.checkScrapable(String(candidate)) else { continue }
            return url
        }
        return nil
    }

    /// Whether `text` has more `(` than `)` for the closing `bracket` (Wikipedia-style links).
    private static func opens(_ text: Substring, _ bracket: Character) -> Bool {
        let opening: Character = bracket == ")" ? "(" : bracket == "]" ? "[" : "{"
        return text.filter { $0 == opening }.count >= text.filter { $0 == bracket }.count
    }

    /// The links a message's attachments already preview.
    static func previewedLinks(_ data: JSONObject) -> Set<String> {
        Set((data["attachments"]?.arrayValue ?? []).compactMap { $0["og_scrape_url"]?.stringValue })
    }

    /// The link of a message with these fields that wants a preview: the first link of its
    /// text, unless an attachment already previews it (a client may send its own preview).
    static func linkToPreview(_ data: JSONObject) -> URL? {
        guard let link = firstLink(in: data["text"]?.stringValue ?? ""), !previewedLinks(data).contains(link.absoluteString) else {
            return nil
        }
        return link
    }

    /// The preview of `link`, or nil when it gives none (logged; the message goes without one,
    /// as on the hosted service).
    func preview(of link: URL) async -> JSONObject? {
        do {
            return try await scraper.preview(of: link)
        } catch {
            logger.info("no link preview", metadata: ["reason": "\(error)"])
            return nil
        }
    }

    /// `data` with `preview` appended to its attachments (when there is room for one more).
    /// On an edit, previews of links its text no longer has are removed first.
    static func applying(_ preview: JSONObject?, to data: JSONObject, isEdit: Bool) -> JSONObject {
        var attachments = data["attachments"]?.arrayValue ?? []
        if isEdit {
            let text = data["text"]?.stringValue ?? ""
            attachments.removeAll { attachment in
                attachment["og_scrape_url"]?.stringValue.map { !text.contains($0) } ?? false
            }
        }
        if let preview, attachments.count < 30 { attachments.append(.object(preview)) }
        var data = data
        if attachments.isEmpty, data["attachments"] == nil { return data }
        data["attachments"] = .array(attachments)
        return data
    }
}
