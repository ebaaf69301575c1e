import ChatBotKitTesting
import ChatModels
import FileSniffing
import Foundation
import Testing

@Suite("MediaFixtures are what they claim to be: libmagic, a parser of its own, reads each as its format and size")
struct MediaFixturesTests {
    @Test(
        "libmagic's description of each fixture, which MediaProbe must agree with",
        arguments: [
            ("photo.png", MediaFixtures.png(width: 37, height: 21), "PNG image data, 37 x 21, 8-bit/color RGB"),
            ("anim.gif", MediaFixtures.gif(width: 320, height: 200), "GIF image data, version 89a, 320 x 200"),
            ("camera.jpg", MediaFixtures.jpeg(width: 4032, height: 3024), "4032x3024"),
            ("lossy.webp", MediaFixtures.webp(width: 1024, height: 768, kind: "lossy"), "Web/P image, VP8 encoding, 1024x768"),
            ("lossless.webp", MediaFixtures.webp(width: 300, height: 200, kind: "lossless"), "Web/P image"),  // libmagic gives no size for VP8L
            ("wide.webp", MediaFixtures.webp(width: 1920, height: 1080, kind: "extended"), "Web/P image"),
            ("scan.bmp", MediaFixtures.bmp(width: 640, height: 480), "640 x -480"),
            ("memo.wav", MediaFixtures.wave(seconds: 0.1), "WAVE audio, Microsoft PCM, 16 bit, mono 8000 Hz"),
            ("clip.mp4", MediaFixtures.isoMedia(seconds: 1, width: 16, height: 16), "ISO Media"),
            ("song.mp3", MediaFixtures.mp3(seconds: 1), "MPEG ADTS, layer III, v1, 128 kbps, 44.1 kHz"),
            ("tagged.mp3", MediaFixtures.mp3(seconds: 1, id3Bytes: 100), "Audio file with ID3 version 2.4.0"),
            ("voice.opus", MediaFixtures.ogg(seconds: 1), "Ogg data, Opus audio"),
            ("music.ogg", MediaFixtures.ogg(seconds: 1, codec: "vorbis"), "Ogg data, Vorbis audio"),
        ])
    func describedByLibmagic(_ name: String, _ data: Data, _ expected: String) throws {
        let scratch = try ScratchFolder("fixture")
        let url = try scratch.write(data, as: name)
        let description = try FileTypeSniffer().description(ofFile: url)
        #expect(description.contains(expected), "\(name): \(description)")
    }
}
