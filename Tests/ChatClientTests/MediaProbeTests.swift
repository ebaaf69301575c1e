import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing

@Suite("MediaProbe: sizes, lengths and waveforms from the files' own headers")
struct MediaProbeTests {
    /// `data` written to a temporary file named `name`, probed, and removed.
    static func probe(_ data: Data, _ name: String = "media", waveform: Bool = false) throws -> MediaInfo {
        let scratch = try ScratchFolder("probe")
        return MediaProbe.probe(try scratch.write(data, as: name), waveform: waveform)
    }

    @Test(
        "image sizes: PNG, GIF, JPEG past a large EXIF block, WebP of each kind, top-down BMP",
        arguments: [
            ("png", MediaFixtures.png(width: 37, height: 21), 37, 21),
            ("gif", MediaFixtures.gif(width: 320, height: 200), 320, 200),
            ("jpeg", MediaFixtures.jpeg(width: 4032, height: 3024, exifBytes: 60_000), 4032, 3024),
            ("webp lossy", MediaFixtures.webp(width: 1024, height: 768, kind: "lossy"), 1024, 768),
            ("webp lossless", MediaFixtures.webp(width: 300, height: 200, kind: "lossless"), 300, 200),
            ("webp extended", MediaFixtures.webp(width: 1920, height: 1080, kind: "extended"), 1920, 1080),
            ("bmp", MediaFixtures.bmp(width: 640, height: 480), 640, 480),
        ])
    func imageSizes(_ name: String, _ data: Data, _ width: Int, _ height: Int) throws {
        #expect(try Self.probe(data, name) == MediaInfo(width: width, height: height))
    }

    @Test("a WAV's length from its data chunk, past a LIST chunk of odd size; the waveform is the peak of each hundredth")
    func waveLengthAndWaveform() throws {
        // Half a second at full volume, then a second at a quarter, then half a second of silence.
        let data = MediaFixtures.wave(seconds: 2, listBytes: 33) { time in time < 0.5 ? 1 : time < 1.5 ? 0.25 : 0 }
        let info = try Self.probe(data, "memo.wav", waveform: true)
        #expect(info.duration == 2)
        let waveform = try #require(info.waveform)
        #expect(waveform.count == MediaProbe.waveformLength)
        #expect(waveform[0..<25].allSatisfy { $0 > 0.99 }, "\(waveform[0..<25])")
        #expect(waveform[25..<75].allSatisfy { abs($0 - 0.25) < 0.01 }, "\(waveform[25..<75])")
        #expect(waveform[75...].allSatisfy { $0 == 0 })
        #expect(try Self.probe(data, "memo.wav", waveform: false) == MediaInfo(duration: 2), "no waveform unless asked")
    }

    @Test(
        "every sample format reads the same tone: 8, 16, 24 and 32-bit integers, 32-bit float, stereo",
        arguments: [(8, false, 1), (16, false, 2), (24, false, 1), (32, false, 1), (32, true, 2)])
    func sampleFormats(_ bits: Int, _ float: Bool, _ channels: Int) throws {
        let data = MediaFixtures.wave(seconds: 0.5, sampleRate: 16_000, bits: bits, float: float, channels: channels) { _ in 0.5 }
        let info = try Self.probe(data, "tone.wav", waveform: true)
        #expect(info.duration == 0.5)
        #expect(info.waveform?.count == 100)
        #expect(info.waveform?.allSatisfy { abs($0 - 0.5) < 0.01 } == true, "\(info.waveform ?? [])")
    }

    @Test("a recording shorter than 100 frames has one value per frame; a data chunk cut short counts what is there")
    func shortAndTruncatedWaves() throws {
        let tiny = MediaFixtures.wave(seconds: 0.005, sampleRate: 8_000)  // 40 frames
        #expect(try Self.probe(tiny, "tiny.wav", waveform: true).waveform?.count == 40)
        let whole = MediaFixtures.wave(seconds: 1)
        let cut = whole.prefix(whole.count - 8_000)  // the last half second is missing
        #expect(try Self.probe(Data(cut), "cut.wav").duration == 0.5)
    }

    @Test(
        "ISO media: MP4 with its moov after or before the data, 32 or 64-bit headers; M4A has a length and no size",
        arguments: [(false, UInt8(0)), (true, UInt8(0)), (false, UInt8(1)), (true, UInt8(1))])
    func isoMedia(_ moovFirst: Bool, _ version: UInt8) throws {
        let video = MediaFixtures.isoMedia(seconds: 12.5, width: 1280, height: 720, moovFirst: moovFirst, version: version)
        #expect(try Self.probe(video, "clip.mp4") == MediaInfo(width: 1280, height: 720, duration: 12.5))
        let audio = MediaFixtures.isoMedia(seconds: 61, moovFirst: moovFirst, version: version)
        #expect(try Self.probe(audio, "memo.m4a") == MediaInfo(duration: 61))
    }

    @Test("MP3: a constant bit rate's length from the size, past ID3v2 and ID3v1 tags; a variable one's from its Xing frame count")
    func mp3() throws {
        let frameSeconds = 1152.0 / 44_100
        let plain = try #require(try Self.probe(MediaFixtures.mp3(seconds: 10), "song.mp3").duration)
        #expect(abs(plain - 383 * 417 * 8 / 128_000) < 0.000_1, "383 frames of 417 bytes at 128 kbps")
        let tagged = try #require(try Self.probe(MediaFixtures.mp3(seconds: 10, id3Bytes: 4_000, id3v1: true), "tagged.mp3").duration)
        #expect(tagged == plain, "the tags are not audio")
        let variable = try #require(try Self.probe(MediaFixtures.mp3(seconds: 10, id3Bytes: 300, xing: true), "vbr.mp3").duration)
        #expect(abs(variable - 382 * frameSeconds) < 0.000_1)
    }

    @Test("Ogg: Opus counts 48 kHz samples less its pre-skip, Vorbis its own rate, both at the last page", arguments: [("opus", 7.5), ("vorbis", 3.0)])
    func ogg(_ codec: String, _ seconds: Double) throws {
        let info = try Self.probe(MediaFixtures.ogg(seconds: seconds, codec: codec), "voice.ogg")
        #expect(info == MediaInfo(duration: seconds))
    }

    @Test("what each bad file gets: nothing found, never a crash, for every length each fixture could be cut to")
    func badFiles() throws {
        #expect(MediaProbe.probe(URL(fileURLWithPath: "/nonexistent/photo.png")) == .unknown)
        #expect(try Self.probe(Data()) == .unknown)
        #expect(try Self.probe(Data("just some text, not a picture".utf8)) == .unknown)
        #expect(try Self.probe(Data([0xFF, 0xFB, 0x90, 0x40] + [UInt8](repeating: 7, count: 600)), "noise.mp3") == .unknown, "one header and no next frame")
        #expect(try Self.probe(Data("ID3".utf8) + Data([4, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]), "bad-tag.mp3") == .unknown, "a tag size that is not sync-safe")
        #expect(try Self.probe(Data([0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x08]), "no-frame.jpg") == .unknown, "a scan before any frame header")
        #expect(try Self.probe(MediaFixtures.png(width: 0, height: 5), "empty.png") == .unknown, "a zero width is not a size")
        let fixtures = [
            MediaFixtures.png(width: 3, height: 2), MediaFixtures.gif(width: 9, height: 9), MediaFixtures.jpeg(width: 8, height: 8, exifBytes: 10),
            MediaFixtures.webp(width: 4, height: 4, kind: "lossy"), MediaFixtures.webp(width: 4, height: 4, kind: "lossless"),
            MediaFixtures.webp(width: 4, height: 4, kind: "extended"), MediaFixtures.bmp(width: 2, height: 2),
            MediaFixtures.wave(seconds: 0.01), MediaFixtures.isoMedia(seconds: 1, width: 16, height: 16, moovFirst: true),
            MediaFixtures.mp3(seconds: 0.1, id3Bytes: 20), MediaFixtures.ogg(seconds: 1),
        ]
        for fixture in fixtures {
            let whole = try Self.probe(fixture, waveform: true)
            #expect(whole != .unknown)
            for length in 0..<min(fixture.count, 300) {
                let partial = try Self.probe(fixture.prefix(length), waveform: true)
                // A header cut short says nothing, or (audio) less; it never says something else.
                #expect(partial == .unknown || partial.width == whole.width || partial.duration != nil)
            }
        }
    }

    @Test("a local file attached as image, video, audio or voiceRecording carries what its headers say; as a file, none of it")
    func attachments() throws {
        let scratch = try ScratchFolder("probe-attachments")
        func file(_ name: String, _ data: Data) throws -> URL { try scratch.write(data, as: name) }
        let photo = try AnyAttachmentPayload(localFileURL: try file("photo.png", MediaFixtures.png(width: 64, height: 48)), attachmentType: .image)
        let photoJSON = try photo.jsonObject()
        #expect(photoJSON["original_width"] == 64 && photoJSON["original_height"] == 48)

        let clip = try AnyAttachmentPayload(
            localFileURL: try file("clip.mp4", MediaFixtures.isoMedia(seconds: 3, width: 640, height: 360)), attachmentType: .video)
        let clipJSON = try clip.jsonObject()
        #expect(clipJSON["duration"] == 3 && clipJSON["original_width"] == 640 && clipJSON["original_height"] == 360)

        let song = try AnyAttachmentPayload(localFileURL: try file("song.m4a", MediaFixtures.isoMedia(seconds: 185)), attachmentType: .audio)
        #expect(try song.jsonObject()["duration"] == 185)

        let memo = try AnyAttachmentPayload(localFileURL: try file("memo.wav", MediaFixtures.wave(seconds: 1.5)), attachmentType: .voiceRecording)
        let memoJSON = try memo.jsonObject()
        #expect(memoJSON["duration"] == 1.5)
        #expect(memoJSON["waveform_data"]?.arrayValue?.count == 100)

        let asFile = try AnyAttachmentPayload(localFileURL: try file("chart.png", MediaFixtures.png(width: 5, height: 5)), attachmentType: .file)
        let fileJSON = try asFile.jsonObject()
        #expect(fileJSON["original_width"] == nil && fileJSON["duration"] == nil)

        let notAnImage = try AnyAttachmentPayload(localFileURL: try file("notes.png", Data("hello".utf8)), attachmentType: .image)
        #expect(try notAnImage.jsonObject()["original_width"] == nil, "a file whose name lies gets no size, and is still sent")
    }
}
