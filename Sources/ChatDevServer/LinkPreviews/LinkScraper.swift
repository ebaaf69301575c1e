import ChatModels
import Foundation

/// Why a link got no preview, in words for `GET /og` and the server log.
struct LinkScrapeFailure: Error, Sendable, CustomStringConvertible {
    var description: String
}

/// Turns a link into the preview attachment the hosted service would add: a page's Open
/// Graph data, or, for a link straight to an image, video or audio file, that file.
struct LinkScraper: Sendable {
    /// How long one scrape may take in all (the hosted service waits about four seconds).
    var timeout: Duration
    /// The most of a page that is read; Open Graph tags are in its head.
    var byteLimit = 512 * 1024

    /// The hosted scraper's agent, so pages that serve previews to it serve them to us.
    static let userAgent = "getstream.io/opengraph-bot facebookexternalhit/1.1 (chatbotkit dev server)"

    /// `url` if it is an absolute http(s) link, else why not.
    static func checkScrapable(_ text: String) -> Result<URL, LinkScrapeFailure> {
        guard let url = URL(string: text), url.hasWebScheme, let host = url.host, !host.isEmpty else {
            return .failure(LinkScrapeFailure(description: "\(text) is not an http or https URL"))
        }
        return .success(url)
    }

    /// The preview of `url`.
    func preview(of url: URL) async throws(LinkScrapeFailure) -> JSONObject {
        let fetched: FetchedPage
        do {
            fetched = try await PageFetch.get(url, timeout: timeout, byteLimit: byteLimit, userAgent: Self.userAgent)
        } catch {
            throw LinkScrapeFailure(description: "\(url.absoluteString) could not be fetched: \(LinkScraper.reason(error))")
        }
        guard (200..<300).contains(fetched.status) else {
            throw LinkScrapeFailure(description: "\(url.absoluteString) answered HTTP \(fetched.status)")
        }
        let type = MIMEType.essence(of: fetched.contentType)
        if let kind = ["image", "video", "audio"].first(where: { type.hasPrefix("\($0)/") }) {
            var object: JSONObject = ["type": .string(kind)]
            let link = RawJSON.string(fetched.finalURL.absoluteString)
            if kind == "image" {
                object["image_url"] = link
                object["thumb_url"] = link
            } else {
                object["asset_url"] = link
            }
            object["og_scrape_url"] = .string(url.absoluteString)
            return object
        }
        guard PageFetch.isHTML(type) else {
            throw LinkScrapeFailure(description: "\(url.absoluteString) is \(type.isEmpty ? "of no stated type" : type), not a web page or media")
        }
        let page = OpenGraphPage(html: String(decoding: fetched.body, as: UTF8.self))
        return page.attachment(pageURL: fetched.finalURL, scrapedURL: url)
    }

    private static func reason(_ error: any Error) -> String {
        guard let error = error as? URLError else { return String(describing: error) }
        switch error.code {
        case .timedOut: return "no answer within the time limit"
        case .cannotFindHost, .dnsLookupFailed: return "the host name does not resolve"
        case .cannotConnectToHost: return "the connection was refused"
        case .badServerResponse: return "the answer was not HTTP"
        default: return "network error \(error.code.rawValue)"
        }
    }
}
