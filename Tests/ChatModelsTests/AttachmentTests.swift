import ChatModels
import ChatTestSupport
import Foundation
import Testing

@Suite("Attachments")
struct AttachmentTests {
    func message(with attachments: [JSONObject]) throws -> Message {
        try #require(try Event(jsonData: try Fixture.messageNew(with: attachments)).message)
    }

    @Test("each built-in attachment decodes into its payload with every wire field")
    func builtInPayloads() throws {
        let message = try message(with: try Fixture.attachments())
        #expect(
            message.attachments.map(\.type) == [.image, .video, .audio, .file, .voiceRecording, .giphy, .linkPreview, DocsWorkoutPayload.type])

        let image = try #require(message.imageAttachments.first)
        #expect(image.title == "photo.png")
        #expect(image.imageURL.path == "/102399/images/photo.png")
        #expect(image.thumbURL?.lastPathComponent == "photo.thumb.png")
        #expect(image.fileSize == 81234)
        #expect(image.mimeType == "image/png")
        #expect(image.originalWidth == 1920 && image.originalHeight == 1080)
        #expect(image.id.index == 0 && image.id.messageId == message.id && image.id.cid == message.cid)
        #expect(SignedLink(image.imageURL).expiresAt == Date(timeIntervalSince1970: 1_602_666_347))

        let video = try #require(message.videoAttachments.first)
        #expect(video.videoURL.absoluteString == "https://cdn.example.com/v.mp4")
        #expect(video.thumbnailURL?.absoluteString == "https://cdn.example.com/v.jpg")
        #expect(video.duration == 12.5 && video.fileSize == 5_242_880 && video.mimeType == "video/mp4")

        let audio = try #require(message.audioAttachments.first)
        #expect(audio.audioURL.lastPathComponent == "a.mp3")
        #expect(audio.fileSize == 48000, "a numeric string file_size, as web clients send it")

        let file = try #require(message.fileAttachments.first)
        #expect(file.title == "report.pdf" && file.assetURL.lastPathComponent == "report.pdf")
        #expect(file.extraData == ["department": "sales"])

        let voice = try #require(message.voiceRecordingAttachments.first)
        #expect(voice.duration == 4.25)
        #expect(voice.waveformData == [0, 0.25, 0.5, 1, 0.75])

        let giphy = try #require(message.giphyAttachments.first)
        #expect(giphy.title == "Test")
        #expect(giphy.previewURL.lastPathComponent == "giphy.gif")
        #expect(giphy.actions.map(\.value) == ["send", "shuffle", "cancel"])
        #expect(giphy.renditions["original"]?["width"] == "480")

        let link = try #require(message.linkAttachments.first)
        #expect(link.originalURL.absoluteString == "https://www.youtube.com/watch?v=xOX7MsrbaPY")
        #expect(link.title == "Introducing MotionScape")
        #expect(link.author == "YouTube")
        #expect(link.text == "MotionScape is a new way to look at the sky")
        #expect(link.previewURL?.lastPathComponent == "mqdefault.jpg")
        #expect(link.extraData["type"] == "video", "the wire type of a preview is kept")
        #expect(message.videoAttachments.count == 1, "a scraped video counts as a link preview, not a video")
    }

    @Test("the seed's workout payload decodes through its CodingKeys")
    func workout() throws {
        let message = try message(with: try Fixture.attachments())
        let workout = try #require(message.attachments(payloadType: DocsWorkoutPayload.self).first)
        #expect(workout.workoutType == "walk")
        #expect(workout.workoutEnergyCal == 75500)
        #expect(workout.workoutDistanceMeters == 1412)
        #expect(workout.workoutDurationSeconds == 840)
        #expect(workout.imageURL?.absoluteString == "https://path.to/some/great/picture.png")
        #expect(message.attachmentCounts == [
            .image: 1, .video: 1, .audio: 1, .file: 1, .voiceRecording: 1, .giphy: 1, .linkPreview: 1, DocsWorkoutPayload.type: 1,
        ])
    }

    @Test("a wrongly typed field fails with its name while the other attachments still decode")
    func wrongFieldType() throws {
        var bad = try #require(try Fixture.attachments().last)
        bad["workout-energy-cal"] = "lots"
        let good = try Fixture.attachments()[0]
        let message = try message(with: [good, bad])
        let results = message.decodeAttachments(payloadType: DocsWorkoutPayload.self)
        #expect(results.count == 1)
        guard case .failure(let failure) = results[0] else {
            Issue.record("a wrong-typed workout must not decode")
            return
        }
        #expect(failure.fieldPath == "workout-energy-cal")
        #expect(failure.reason == #"expected an integer, found string "lots""#)
        #expect(failure.message.contains("workout-energy-cal"))
        #expect(failure.attachmentId.index == 1)
        #expect(String(decoding: failure.rawData, as: UTF8.self).contains(#""workout-energy-cal":"lots""#))
        #expect(message.imageAttachments.count == 1, "the good attachment of the same message still decodes")
        #expect(message.attachments(payloadType: DocsWorkoutPayload.self).isEmpty)
        guard case .failure(let mismatch) = message.attachments[0].decode(DocsWorkoutPayload.self) else {
            Issue.record("an image must not decode as a workout")
            return
        }
        #expect(mismatch.fieldPath == "type")
        #expect(mismatch.reason == "attachment type is image, DocsWorkoutPayload decodes workout")

        var registry = AttachmentPayloadRegistry()
        registry.registerAttachment(DocsWorkoutPayload.self)
        guard case .failed(let registryFailure) = registry.decode(message.attachments[1]) else {
            Issue.record("the registry must report the failure")
            return
        }
        #expect(registryFailure.fieldPath == "workout-energy-cal")
        guard case .decoded(let payload, _) = registry.decode(message.attachments[0]) else {
            Issue.record("the image must decode")
            return
        }
        #expect((payload as? ImageAttachmentPayload)?.title == "photo.png")
    }

    @Test("a missing required URL names the field")
    func missingURL() throws {
        let message = try message(with: [["type": "file", "title": "no url"]])
        guard case .failure(let failure)? = message.decodeAttachments(payloadType: FileAttachmentPayload.self).first else {
            Issue.record("a file without asset_url must not decode")
            return
        }
        #expect(failure.fieldPath == "asset_url")
        #expect(failure.reason == "required field is missing")
    }

    @Test("an attachment without type is unknown; non-object attachments are skipped")
    func withoutType() throws {
        let text = #"{"id":"m1","cid":"messaging:general","attachments":[{"title":"mystery","size":3},"a string",7,{"type":"image","image_url":"https://x/y.png"}]}"#
        let message = try Message(jsonData: Data(text.utf8))
        #expect(message.attachments.map(\.type) == [.unknown, .image])
        #expect(message.attachments.map(\.id.index) == [0, 3])
        var registry = AttachmentPayloadRegistry()
        registry.registerAttachment(DocsWorkoutPayload.self)
        guard case .unknown(let unknown) = registry.decode(message.attachments[0]) else {
            Issue.record("an attachment without type must be unknown")
            return
        }
        #expect(unknown.rawJSON["title"] == "mystery")
    }

    @Test("og_scrape_url makes any attachment a link preview, whatever its type")
    func linkPreviewClassification() throws {
        let message = try message(with: [
            ["type": "image", "image_url": "https://x/y.png", "thumb_url": "https://x/y.png", "og_scrape_url": "https://x/y.png"],
            ["type": "workout", "og_scrape_url": "https://example.com"],
        ])
        #expect(message.attachments.map(\.type) == [.linkPreview, .linkPreview])
        #expect(message.imageAttachments.isEmpty)
        #expect(message.linkAttachments.first?.imageURL?.absoluteString == "https://x/y.png")
    }

    @Test("the keys that classify are found as written, escaped or not, and keys of their length that differ are not them")
    func classificationKeys() throws {
        let attachments = [
            #"{"\u0074ype":"video","asset_url":"https://x/v.mp4"}"#,
            #"{"type":"image","og_scrape\u005furl":"https://x"}"#,
            #"{"typo":"image","og_scrape_uri":"https://x","og_scrape_ur":"https://x","og_scrape_url_":"https://x"}"#,
            #"{"type":"image","Type":"video","og_Scrape_url":"https://x"}"#,
        ]
        let text = #"{"id":"m1","attachments":["# + attachments.joined(separator: ",") + "]}"
        let message = try Message(jsonData: Data(text.utf8))
        #expect(message.attachments.map(\.type) == [.video, .linkPreview, .unknown, .image])
    }

    @Test("an unknown attachment type round-trips byte for byte")
    func unknownRoundTrip() throws {
        let raw = #"{"type":"product","sku":"A1","price":10.50,"dims":{"w":1,"h":2.0},"tags":["a"],"huge":123456789012345678901234567890}"#
        let text = #"{"id":"m1","cid":"messaging:general","attachments":["# + raw + "]}"
        let message = try Message(jsonData: Data(text.utf8))
        let attachment = try #require(message.attachments.first)
        #expect(attachment.type == AttachmentType(rawValue: "product"))
        #expect(String(decoding: attachment.payload, as: UTF8.self) == raw)
        let reencoded = try #require(message.json["attachments"]?.arrayValue?.first)
        #expect(JSONWriter.string(reencoded) == raw)
    }

    @Test("registered payload types decode; unregistered ones stay unknown")
    func registry() throws {
        let workoutJSON = try #require(try Fixture.attachments().last)
        let message = try message(with: [workoutJSON])
        let plain = AttachmentPayloadRegistry()
        #expect(plain.registeredTypes == Set(AttachmentType.builtIn))
        guard case .unknown = plain.decode(message.attachments[0]) else {
            Issue.record("workout is not registered by default")
            return
        }
        var registry = AttachmentPayloadRegistry()
        registry.registerAttachment(DocsWorkoutPayload.self)
        guard case .decoded(let payload, let attachment) = registry.decode(message.attachments[0]) else {
            Issue.record("a registered workout must decode")
            return
        }
        #expect((payload as? DocsWorkoutPayload)?.workoutDistanceMeters == 1412)
        #expect(attachment.type == DocsWorkoutPayload.type)
    }

    @Test("outbound payloads encode flat with their type")
    func outbound() throws {
        let workout = DocsWorkoutPayload(
            imageURL: URL(string: "https://path.to/some/great/picture.png"), workoutDistanceMeters: 150, workoutDurationSeconds: 42,
            workoutEnergyCal: 1000)
        let payload = AnyAttachmentPayload(payload: workout)
        #expect(payload.type == DocsWorkoutPayload.type)
        #expect(payload.localFileURL == nil)
        let object = try payload.jsonObject()
        #expect(object["type"] == "workout")
        #expect(object["workout-distance-meters"] == 150)
        #expect(object["workout-type"] == nil)
        #expect(object.keys.first == "type")
    }

    @Test("the file link: image_url first for images, asset_url first otherwise, thumb_url last; none for a giphy or a bad link")
    func fileLink() {
        func attachment(_ json: JSONObject) -> AnyChatMessageAttachment {
            AnyChatMessageAttachment(id: AttachmentId(cid: nil, messageId: "m1", index: 0), json: json)
        }
        let image = attachment(["type": "image", "asset_url": "https://cdn/a.png", "image_url": "https://cdn/i.png", "thumb_url": "https://cdn/t.png"])
        #expect(image.fileLinkField == "image_url" && image.fileLink?.absoluteString == "https://cdn/i.png")
        let file = attachment(["type": "file", "image_url": "https://cdn/i.png", "asset_url": "https://cdn/f.pdf"])
        #expect(file.fileLinkField == "asset_url" && file.fileLink?.absoluteString == "https://cdn/f.pdf")
        let video = attachment(["type": "video", "thumb_url": "https://cdn/t.png"])
        #expect(video.fileLinkField == "thumb_url")
        let broken = attachment(["type": "file", "asset_url": "", "thumb_url": "https://cdn/t.png"])
        #expect(broken.fileLinkField == "thumb_url", "an empty asset_url is no link")
        #expect(attachment(["type": "giphy", "giphy": ["fixed_height": ["url": "https://giphy/x.gif"]]]).fileLink == nil)
        #expect(attachment(["type": "file", "asset_url": 42]).fileLink == nil)
    }

    @Test("AnyAttachmentUpdater changes the typed fields and keeps unmodelled ones")
    func updater() throws {
        var attachment = AnyChatMessageAttachment(
            id: AttachmentId(cid: nil, messageId: "m1", index: 0),
            json: ["type": "workout", "workout-type": "walk", "gear": "shoes", "workout-energy-cal": 5])
        let updated = AnyAttachmentUpdater().update(&attachment, forPayload: DocsWorkoutPayload.self) { payload in
            payload.imageURL = URL(string: "https://cdn/x.png")
            payload.workoutEnergyCal = nil
        }
        #expect(updated)
        let json = attachment.rawJSON
        #expect(json["image_url"] == "https://cdn/x.png")
        #expect(json["gear"] == "shoes")
        #expect(json["workout-energy-cal"] == nil)
        #expect(json["workout-type"] == "walk")
        #expect(!AnyAttachmentUpdater().update(&attachment, forPayload: ImageAttachmentPayload.self) { _ in })
    }

    @Test("MIME types are guessed from extensions and matched with wildcards")
    func mimeTypes() {
        #expect(MIMEType.guess(forPathExtension: "PNG") == "image/png")
        #expect(MIMEType.guess(forPathExtension: ".exe") == "application/x-msdownload")
        #expect(MIMEType.guess(forPathExtension: "weird") == "application/octet-stream")
        #expect(MIMEType.matches("image/png", pattern: "image/*"))
        #expect(MIMEType.matches("text/plain; charset=utf-8", pattern: "text/plain"))
        #expect(!MIMEType.matches("application/pdf", pattern: "image/*"))
    }
}
