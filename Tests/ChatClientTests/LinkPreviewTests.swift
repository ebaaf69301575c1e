import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatModels
import Foundation
import Testing

@Suite("Link previews (URL enrichment) against the dev server")
struct LinkPreviewTests {
    /// The site the messages below link to, made for each test: LeakSanitizer reported the
    /// `Data` of these pages as leaked while a static constant held them.
    static var site: [String: TestWebPages.Page] {
        [
        "/article": .html(
            """
            <!DOCTYPE html><html><head><title>A plain title</title>
            <meta charset="utf-8">
            <meta property="og:title" content="Morning run &amp; coffee">
            <meta property="og:description" content='Five kilometres along the river &#8211; an easy pace'>
            <meta property="og:image" content="/pictures/run.png">
            <meta property="og:site_name" content="RunLog">
            <!-- <meta property="og:title" content="not this one"> -->
            </head><body><script>var s = '<meta property="og:description" content="nor this">';</script></body></html>
            """),
        "/clip": .openGraph([
            "og:title": "Intervals, explained", "og:video": "https://videos.example.com/intervals.mp4",
            "og:url": "https://runlog.example.com/clips/intervals",
        ]),
        "/bare": .html("<html><head><title>Only a title</title></head></html>"),
        "/pictures/run.png": TestWebPages.Page(contentType: "image/png", body: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3])),
        "/report.pdf": TestWebPages.Page(contentType: "application/pdf", body: Data("%PDF-1.4".utf8)),
        // Longer than the preview timeout of the test that fetches it, short enough not to hold up shutdown.
        // Far slower than the 1.5 s preview timeout, so that giving up shows even on a machine
        // loaded enough (ThreadSanitizer, a second job) to take 3 s for the rest of the send.
        "/slow": .html("<title>late</title>", delay: .seconds(6)),
        ]
    }

    /// Runs `body` with the site, a dev server (changed by `configure`), and ann's client; ann
    /// is a member of messaging:links.
    static func withSite(
        configure: @escaping @Sendable (inout DevServerConfiguration) -> Void = { _ in },
        _ body: @escaping @Sendable (TestWebPages, ChatClient) async throws -> Void
    ) async throws {
        try await TestWebPages.withPages(site) { pages in
            try await TestChatServer.withServer(configure: configure) { server in
                let client = server.client(as: "ann")
                try await client.join("messaging:links", as: "ann")
                try await body(pages, client)
            }
        }
    }

    @Test("the first link of a message gets its page's preview, typed as a link preview; an image link previews the image")
    func previewsOnSend() async throws {
        try await Self.withSite { pages, client in
            let channel = client.channel("messaging:links")

            let article = pages.url("/article")
            let sent = try await channel.sendMessage(text: "Look: \(article.absoluteString). And https://example.com/second")
            #expect(sent.attachmentCounts == [.linkPreview: 1])
            let preview = try #require(sent.attachments(payloadType: LinkAttachmentPayload.self).first?.payload)
            #expect(preview.originalURL == article)
            #expect(preview.title == "Morning run & coffee")
            #expect(preview.text == "Five kilometres along the river – an easy pace")
            #expect(preview.author == "RunLog")
            #expect(preview.titleLink == article)
            #expect(preview.imageURL == pages.url("/pictures/run.png"))
            #expect(preview.previewURL == pages.url("/pictures/run.png"))
            #expect(preview.extraData["type"] == "image")
            // Read back, the preview is stored with the message.
            #expect(try await client.getMessage(sent.id).attachments(payloadType: LinkAttachmentPayload.self).first?.payload == preview)

            let clip = try #require(
                try await channel.sendMessage(text: pages.url("/clip").absoluteString).attachments(payloadType: LinkAttachmentPayload.self)
                    .first?.payload)
            #expect(clip.extraData["type"] == "video")
            #expect(clip.assetURL == URL(string: "https://videos.example.com/intervals.mp4"))
            #expect(clip.titleLink == URL(string: "https://runlog.example.com/clips/intervals"))

            let picture = pages.url("/pictures/run.png")
            let image = try #require(
                try await channel.sendMessage(text: "(\(picture.absoluteString))").attachments(payloadType: LinkAttachmentPayload.self).first?
                    .payload)
            #expect(image.originalURL == picture)
            #expect(image.imageURL == picture)
            #expect(image.extraData["type"] == "image")
            #expect(image.title == nil)
        }
    }

    @Test("skipEnrichURL, a preview the sender made, and a link that gives none: nothing is fetched or added, and nothing is lost")
    func noPreview() async throws {
        try await Self.withSite(configure: { $0.linkPreviewTimeout = .milliseconds(1500) }) { pages, client in
            let cid: ChannelId = "messaging:links"
            let article = pages.url("/article")

            let skipped = try await client.sendMessage(OutgoingMessage(text: "see \(article.absoluteString)", skipEnrichURL: true), to: cid)
            #expect(skipped.attachments.isEmpty)
            #expect(pages.hits("/article") == 0)

            // A client that made its own preview (as Stream's composers do) keeps it as sent.
            let own = AnyAttachmentPayload(json: ["type": "image", "title": "my title", "og_scrape_url": .string(article.absoluteString)])
            let withOwn = try await client.sendMessage(OutgoingMessage(text: "see \(article.absoluteString)", attachments: [own]), to: cid)
            #expect(withOwn.attachments.count == 1)
            #expect(withOwn.attachments(payloadType: LinkAttachmentPayload.self).first?.payload.title == "my title")
            #expect(pages.hits("/article") == 0)

            // Links that give no preview: the message is sent, text intact, without one.
            for path in ["missing", "report.pdf", "slow"] {
                let text = "about \(pages.url("/\(path)").absoluteString) here"
                let clock = ContinuousClock()
                let start = clock.now
                let sent = try await client.channel(cid).sendMessage(text: text)
                #expect(sent.text == text)
                #expect(sent.attachments.isEmpty, "\(path)")
                #expect(pages.hits("/\(path)") == 1, "\(path)")
                #expect(clock.now - start < .milliseconds(4500), "a slow page is given up on after the preview timeout")
            }
        }
    }

    @Test("an edit that changes the link changes the preview; one that drops the link drops it; pinning fetches nothing")
    func previewsOnEdit() async throws {
        try await Self.withSite { pages, client in
            let file = AnyAttachmentPayload(json: ["type": "file", "asset_url": "https://example.com/plan.pdf", "title": "plan.pdf"])
            let sent = try await client.channel("messaging:links").sendMessage(text: "plan \(pages.url("/article").absoluteString)", attachments: [file])
            #expect(sent.attachmentCounts == [.file: 1, .linkPreview: 1])

            let clip = pages.url("/clip")
            let edited = try await client.partialUpdateMessage(sent.id, set: ["text": .string("plan, now \(clip.absoluteString)")])
            #expect(edited.attachmentCounts == [.file: 1, .linkPreview: 1])
            #expect(edited.attachments(payloadType: LinkAttachmentPayload.self).first?.payload.originalURL == clip)

            let hitsBefore = pages.hits("/clip")
            let pinned = try await client.partialUpdateMessage(sent.id, set: ["pinned": true])
            #expect(pinned.attachmentCounts == [.file: 1, .linkPreview: 1])
            #expect(pages.hits("/clip") == hitsBefore)

            let plain = try await client.partialUpdateMessage(sent.id, set: ["text": "plan, no link"])
            #expect(plain.attachmentCounts == [.file: 1])

            // A full update redoes the preview from the text it sends.
            let full = try await client.updateMessage(sent.id, text: "again \(pages.url("/bare").absoluteString)", attachments: [file])
            #expect(full.attachmentCounts == [.file: 1, .linkPreview: 1])
            let bare = try #require(full.attachments(payloadType: LinkAttachmentPayload.self).first?.payload)
            #expect(bare.title == "Only a title")
            #expect(bare.extraData["type"] == "")
            #expect(bare.imageURL == nil)

            let skipped = try await client.updateMessage(
                sent.id, text: "skip \(pages.url("/article").absoluteString)", attachments: [file], skipEnrichURL: true)
            #expect(skipped.attachmentCounts == [.file: 1])
        }
    }

    @Test("enrichURL gives the preview on demand; a link that gives none is refused with the reason")
    func enrichURL() async throws {
        try await Self.withSite { pages, client in
            let preview = try await client.enrichURL(pages.url("/article"))
            #expect(preview.title == "Morning run & coffee")
            #expect(preview.imageURL == pages.url("/pictures/run.png"))
            #expect(try await client.enrichURL(pages.url("/pictures/run.png")).imageURL == pages.url("/pictures/run.png"))

            let refusals: [(URL, String)] = [
                (pages.url("/missing"), "answered HTTP 404"),
                (pages.url("/report.pdf"), "is application/pdf, not a web page or media"),
                (URL(string: "ftp://example.com/file")!, "is not an http or https URL"),
                (URL(string: "http://127.0.0.1:1/closed")!, "could not be fetched: the connection was refused"),
            ]
            for (url, reason) in refusals {
                let error = await #expect(throws: ChatClientError.self) { try await client.enrichURL(url) }
                #expect(error?.streamCode == 4)
                #expect(error?.httpStatus == 400)
                #expect(error?.message.contains(reason) == true, "\(error?.message ?? "") should say \(reason)")
            }
        }
    }

    @Test("with async_url_enrich_enabled the send answers at once and the preview follows in message.updated")
    func asyncEnrichment() async throws {
        try await Self.withSite { pages, client in
            try await client.updateAppSettings(["async_url_enrich_enabled": true])
            #expect(try await client.appSettings(refresh: true).raw["async_url_enrich_enabled"] == true)
            try await withEventConnection(client, user: "ann") { connection, collector in
                try await connection.watch("messaging:links")
                let sent = try await client.channel("messaging:links").sendMessage(text: pages.url("/article").absoluteString)
                #expect(sent.attachments.isEmpty)
                try await collector.wait { events in
                    events.contains { $0.type == .messageUpdated && $0.message?.id == sent.id && $0.message?.attachmentCounts == [.linkPreview: 1] }
                }
                #expect(try await client.getMessage(sent.id).attachmentCounts == [.linkPreview: 1])
            }
            let error = await #expect(throws: ChatClientError.self) { try await client.updateAppSettings(["async_url_enrich_enabled": "yes"]) }
            #expect(error?.message.contains("async_url_enrich_enabled must be true or false") == true)
        }
    }

    @Test("a server with url enrichment off adds no preview and says so in the channel config")
    func enrichmentOff() async throws {
        try await Self.withSite(configure: { $0.enrichesURLs = false }) { pages, client in
            let sent = try await client.channel("messaging:links").sendMessage(text: pages.url("/article").absoluteString)
            #expect(sent.attachments.isEmpty)
            #expect(pages.hits("/article") == 0)
            let state = try await client.queryChannel("messaging:links")
            #expect(state.channel.config?["url_enrichment"] == false)
            // GET /og still answers: it is asked for explicitly.
            #expect(try await client.enrichURL(pages.url("/article")).title == "Morning run & coffee")
        }
    }
}
