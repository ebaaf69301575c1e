import ChatModels
@testable import ChatDevServer
import Foundation
import Testing

@Suite("Link preview parts: the link finder and the Open Graph reader")
struct LinkPreviewPartsTests {
    @Test(
        "the first http(s) link of a text, without the punctuation around it",
        arguments: [
            ("see https://example.com/a.", "https://example.com/a"),
            ("(https://example.com/a), then http://example.com/b", "https://example.com/a"),
            ("https://en.wikipedia.org/wiki/Run_(sport)!", "https://en.wikipedia.org/wiki/Run_(sport)"),
            ("<HTTPS://Example.com/x?y=1&z=2>", "HTTPS://Example.com/x?y=1&z=2"),
            ("\"http://example.com/q\"", "http://example.com/q"),
            ("xhttp://example.com/no then https://example.com/yes", "https://example.com/yes"),
            ("ftp://example.com/no https://", nil),
            ("no link here, just http and https words", nil),
            ("", nil),
        ] as [(String, String?)])
    func firstLink(text: String, expected: String?) {
        #expect(URLEnricher.firstLink(in: text)?.absoluteString == expected)
    }

    @Test("Open Graph tags in any quoting, entities decoded, relative links resolved; comments and scripts skipped")
    func openGraph() throws {
        let html = """
            <html><head><TITLE> Plain &lt;title&gt; </TITLE>
            <!-- <meta property="og:title" content="commented out"> -->
            <script>document.write('<meta property="og:title" content="scripted">')</script>
            <meta property=og:title content="Run &amp; coffee &#x2014; &#8220;easy&#8221;">
            <meta name='description' content='the page description'>
            <META PROPERTY="og:image" CONTENT="../img/run.png">
            <meta property="og:site_name" content="RunLog" />
            <meta property="og:title" content="a second og:title is ignored">
            </head></html>
            """
        let page = OpenGraphPage(html: html)
        #expect(page.title == "Plain <title>")
        let base = try #require(URL(string: "https://runlog.example.com/posts/7"))
        let attachment = page.attachment(pageURL: base, scrapedURL: try #require(URL(string: "https://t.example/7")))
        #expect(attachment["title"] == "Run & coffee — “easy”")
        #expect(attachment["text"] == "the page description")
        #expect(attachment["image_url"] == "https://runlog.example.com/img/run.png")
        #expect(attachment["thumb_url"] == "https://runlog.example.com/img/run.png")
        #expect(attachment["author_name"] == "RunLog")
        #expect(attachment["title_link"] == "https://t.example/7")
        #expect(attachment["og_scrape_url"] == "https://t.example/7")
        #expect(attachment["type"] == "image")
        #expect(attachment["asset_url"] == nil)
    }

    @Test("fallbacks: Twitter cards, then the title; audio and video pick the type; a javascript: image is dropped")
    func fallbacks() throws {
        let base = try #require(URL(string: "https://example.com/"))
        let twitter = OpenGraphPage(
            html: #"<meta name="twitter:title" content="Card"><meta name="twitter:image" content="javascript:alert(1)"><title>T</title>"#)
        let card = twitter.attachment(pageURL: base, scrapedURL: base)
        #expect(card["title"] == "Card")
        #expect(card["image_url"] == nil)
        #expect(card["type"] == "")
        let audio = OpenGraphPage(html: #"<meta property="og:audio" content="/a.mp3"><meta property="og:image" content="/c.jpg">"#)
        #expect(audio.attachment(pageURL: base, scrapedURL: base)["type"] == "audio")
        #expect(audio.attachment(pageURL: base, scrapedURL: base)["asset_url"] == "https://example.com/a.mp3")
    }

    @Test("broken HTML never stops the reader: it reads what it can", arguments: [
        "<meta property=\"og:title\" content=\"unterminated",
        "<meta", "<", "<<<>>>", "<!-- never closed <meta property=\"og:title\" content=\"x\">",
        "<title>no end", "<meta property='og:title' content=>", "<script>never closed", "&#xFFFFFFFF; &#99999999; &bogus; &",
        String(repeating: "<meta property=\"og:x\" content=\"y\">", count: 2_000),
    ])
    func brokenHTML(html: String) throws {
        let page = OpenGraphPage(html: html)
        let url = try #require(URL(string: "https://example.com/"))
        #expect(page.attachment(pageURL: url, scrapedURL: url)["og_scrape_url"] == "https://example.com/")
    }

    @Test("entities: numeric, hex and named; unknown and unterminated ones stay as written")
    func entities() {
        #expect(HTMLEntities.decode("a &amp; b &#39;c&#x27; &hellip;") == "a & b 'c' …")
        #expect(HTMLEntities.decode("&unknown; & &#xZZ; &#1114112;") == "&unknown; & &#xZZ; &#1114112;")
    }

    @Test("an edit drops previews of links its text no longer has, and keeps the others and every other attachment")
    func applying() {
        let data: JSONObject = [
            "text": "now https://b.example/",
            "attachments": [
                ["type": "image", "og_scrape_url": "https://a.example/"], ["type": "file", "asset_url": "https://f.example/x.pdf"],
                ["type": "", "og_scrape_url": "https://b.example/"],
            ],
        ]
        let edited = URLEnricher.applying(nil, to: data, isEdit: true)
        #expect(edited["attachments"]?.arrayValue?.count == 2)
        #expect(edited["attachments"]?.arrayValue?.first?["type"] == "file")
        #expect(URLEnricher.applying(nil, to: data, isEdit: false) == data)
        let full: JSONObject = ["text": "https://c.example/", "attachments": .array(Array(repeating: ["type": "file"], count: 30))]
        #expect(URLEnricher.applying(["og_scrape_url": "https://c.example/"], to: full, isEdit: false)["attachments"]?.arrayValue?.count == 30)
        #expect(URLEnricher.linkToPreview(data) == nil, "b.example is already previewed")
        #expect(URLEnricher.linkToPreview(["text": "https://c.example/"])?.absoluteString == "https://c.example/")
    }
}
