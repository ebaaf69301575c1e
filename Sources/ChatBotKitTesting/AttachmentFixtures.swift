import ChatModels
import Foundation

/// Attachments of every built-in type (and custom ones), ready to send or to decode, including
/// the awkward cases bots must survive: expired signed links and files whose name lies.
public enum AttachmentFixtures {
    /// A signed link that expired `age` ago (CloudFront canned-policy form).
    public static func expiredLink(_ base: String = "https://frankfurt.stream-io-cdn.com/102399/images/old.png", age: TimeInterval = 3600)
        -> URL
    {
        URL(string: "\(base)?Expires=\(Int(Date().timeIntervalSince1970 - age))&Signature=expired&Key-Pair-Id=APKAIHG36VEWPDULE23Q")!
    }

    /// A signed link valid for `lifetime` more seconds.
    public static func signedLink(_ base: String = "https://frankfurt.stream-io-cdn.com/102399/images/new.png", lifetime: TimeInterval = 3600)
        -> URL
    {
        URL(string: "\(base)?Expires=\(Int(Date().timeIntervalSince1970 + lifetime))&Signature=fresh&Key-Pair-Id=APKAIHG36VEWPDULE23Q")!
    }

    /// An image payload.
    public static func image(_ url: URL = signedLink(), title: String = "photo.png", size: Int64 = 81_234, width: Double = 1920, height: Double = 1080)
        -> ImageAttachmentPayload
    {
        ImageAttachmentPayload(
            title: title, imageURL: url, originalWidth: width, originalHeight: height, fileSize: size, mimeType: "image/png")
    }

    /// A video payload.
    public static func video(_ url: URL = signedLink("https://cdn.example.com/clip.mp4"), duration: Double = 12.5) -> VideoAttachmentPayload {
        VideoAttachmentPayload(
            title: "clip.mp4", videoURL: url, thumbnailURL: URL(string: "https://cdn.example.com/clip.jpg"), duration: duration,
            originalWidth: 1280, originalHeight: 720, fileSize: 5_242_880, mimeType: "video/mp4")
    }

    /// An audio payload.
    public static func audio(_ url: URL = signedLink("https://cdn.example.com/song.mp3")) -> AudioAttachmentPayload {
        AudioAttachmentPayload(title: "song.mp3", audioURL: url, duration: 3.2, fileSize: 48_000, mimeType: "audio/mpeg")
    }

    /// A file payload.
    public static func file(_ url: URL = signedLink("https://cdn.example.com/report.pdf"), title: String = "report.pdf", mimeType: String = "application/pdf")
        -> FileAttachmentPayload
    {
        FileAttachmentPayload(title: title, assetURL: url, fileSize: 10_240, mimeType: mimeType)
    }

    /// A voice recording payload with a waveform.
    public static func voiceRecording(_ url: URL = signedLink("https://cdn.example.com/voice.aac")) -> VoiceRecordingAttachmentPayload {
        VoiceRecordingAttachmentPayload(
            title: "recording.aac", voiceRecordingURL: url, duration: 4.25, waveformData: [0, 0.25, 0.5, 1, 0.75], fileSize: 2048,
            mimeType: "audio/aac")
    }

    /// A giphy payload with Send / Shuffle / Cancel.
    public static func giphy(query: String = "Test") -> GiphyAttachmentPayload {
        GiphyAttachmentPayload(
            title: query, previewURL: URL(string: "https://media4.giphy.com/media/3o7btPCcdNniyf0ArS/giphy.gif")!,
            titleLink: URL(string: "https://giphy.com/gifs/test-3o7btPCcdNniyf0ArS"),
            actions: [
                AttachmentAction(name: "image_action", text: "Send", style: "primary", type: "button", value: "send"),
                AttachmentAction(name: "image_action", text: "Shuffle", style: "default", type: "button", value: "shuffle"),
                AttachmentAction(name: "image_action", text: "Cancel", style: "default", type: "button", value: "cancel"),
            ],
            renditions: ["original": ["url": "https://media4.giphy.com/media/3o7btPCcdNniyf0ArS/giphy.gif", "width": "480", "height": "368"]])
    }

    /// A link preview, as the server scrapes it.
    public static func linkPreview(_ url: URL = URL(string: "https://www.youtube.com/watch?v=xOX7MsrbaPY")!) -> LinkAttachmentPayload {
        LinkAttachmentPayload(
            originalURL: url, title: "Introducing MotionScape", text: "A new way to look at the sky", author: "YouTube", titleLink: url,
            imageURL: URL(string: "https://i.ytimg.com/vi/xOX7MsrbaPY/mqdefault.jpg"), extraData: ["type": "video"])
    }

    /// A custom attachment object (`type` plus flat fields), as any client may send.
    public static func custom(_ type: String, _ fields: JSONObject) -> JSONObject {
        var object: JSONObject = ["type": .string(type)]
        for (key, value) in fields { object[key] = value }
        return object
    }
}
