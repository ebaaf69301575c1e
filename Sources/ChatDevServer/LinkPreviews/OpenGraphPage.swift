import ChatModels
import Foundation

/// The Open Graph data of an HTML page (`<meta property="og:…">`), with the fallbacks scrapers
/// use when a page has none: Twitter cards, `<meta name="description">` and `<title>`.
///
/// Read with a tolerant scan rather than an HTML parser: real pages are rarely valid HTML, and a
/// preview needs a dozen attributes of `<meta>` tags and one `<title>`.
struct OpenGraphPage: Sendable, Equatable {
    /// The first value of each property or name, lower-cased (`og:title`, `twitter:image`, `description`).
    var properties: [String: String] = [:]
    /// The text of `<title>`.
    var title: String?

    /// Reads the `<meta>` tags and the title of a page.
    init(html: String) {
        var scanner = TagScanner(html)
        while let tag = scanner.nextTag() {
            switch tag.name {
            case "meta":
                guard let key = (tag.attributes["property"] ?? tag.attributes["name"])?.lowercased(),
                    let content = tag.attributes["content"]
                else { continue }
                let value = HTMLEntities.decode(content).trimmingCharacters(in: .whitespacesAndNewlines)
                if !value.isEmpty, properties[key] == nil { properties[key] = value }
            case "title" where title == nil:
                let text = HTMLEntities.decode(scanner.text(until: "</title")).trimmingCharacters(in: .whitespacesAndNewlines)
                if !text.isEmpty { title = text }
            default: continue
            }
        }
    }

    private func first(_ keys: String...) -> String? { keys.lazy.compactMap { properties[$0] }.first }

    /// The preview attachment in the hosted service's shape: `og:title` → `title`,
    /// `og:description` → `text`, `og:url` → `title_link`, `og:image` → `image_url` and `thumb_url`,
    /// `og:video`/`og:audio` → `asset_url`, `og:site_name` → `author_name`; `type` is `video`,
    /// `audio` or `image` by the media the page names, else empty. Links are resolved against
    /// `pageURL`; `scrapedURL` (what the message said) becomes `og_scrape_url`.
    func attachment(pageURL: URL, scrapedURL: URL) -> JSONObject {
        func link(_ value: String?) -> String? {
            guard let value, let url = URL(string: value, relativeTo: pageURL)?.absoluteURL, url.hasWebScheme else { return nil }
            return url.absoluteString
        }
        let image = link(first("og:image:secure_url", "og:image:url", "og:image", "twitter:image", "twitter:image:src"))
        let video = link(first("og:video:secure_url", "og:video:url", "og:video"))
        let audio = link(first("og:audio:secure_url", "og:audio:url", "og:audio"))
        var object: JSONObject = ["type": .string(video != nil ? "video" : audio != nil ? "audio" : image != nil ? "image" : "")]
        let fields: [(String, String?)] = [
            ("title", first("og:title", "twitter:title") ?? title),
            ("text", first("og:description", "twitter:description", "description")),
            ("title_link", link(first("og:url")) ?? scrapedURL.absoluteString),
            ("author_name", first("og:site_name")),
            ("author_link", link(first("og:site"))),
            ("image_url", image), ("thumb_url", image),
            ("asset_url", video ?? audio),
        ]
        for case (let key, let value?) in fields { object[key] = .string(value) }
        object["og_scrape_url"] = .string(scrapedURL.absoluteString)
        return object
    }
}
