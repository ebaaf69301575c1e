import ArgumentParser
import ChatClient
import ChatModels
import Foundation

/// `bots send`: post as a user, with text, a file (with a progress bar) or a custom payload.
struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "send", abstract: "Post a message as a user.")

    @OptionGroup var options: ConfigOptions

    @Option(help: "The channel, type:id.")
    var channel: ChannelId = "messaging:general"

    @Option(help: "The user to post as (created if needed).")
    var user: String = "alice"

    @Option(help: "The message text (a /command is text too).")
    var text: String = ""

    @Option(help: "A local file to upload and attach (repeatable).")
    var file: [String] = []

    @Option(help: "The attachment type of --file: file, image, video, audio, voiceRecording (default: image for image names, else file).")
    var fileType: String?

    @Option(help: "A custom attachment as JSON, such as '{\"type\":\"workout\",\"workout-type\":\"run\"}' (repeatable).")
    var attachment: [String] = []

    @Option(help: "When a custom command answers with buttons (shown to the sender alone), press the one with this value, such as log.")
    var press: String?

    @Option(help: "Seconds to wait for replies from the channel's bots (0: do not wait).")
    var waitForReplies: Double = 3

    func run() async throws {
        var payloads: [AnyAttachmentPayload] = []
        do {
            for text in attachment { payloads.append(try AttachmentArguments.customPayload(text, from: "--attachment")) }
            for path in file { payloads.append(try AttachmentArguments.upload(path, type: fileType.map(AttachmentType.init(rawValue:)))) }
        } catch {
            throw ValidationError(error.message)
        }
        guard !text.isEmpty || !payloads.isEmpty else { throw ValidationError("give --text, --file or --attachment") }
        let (client, configuration) = try options.client(as: user)
        try await options.reaching(configuration) { try await client.upsertUsers([User(id: user, name: user.capitalized)]) }
        let membershipFilter: JSONObject = ["user_id": .string(user)]
        let wasMember = (try? await client.queryMembers(of: channel, filter: membershipFilter, limit: 1))?.isEmpty == false
        try await client.join(channel, as: user)
        // A user new to the channel is shown what the bots said since it joined (a welcome),
        // which may come before the message it sends.
        let joinedAt = wasMember ? nil : try await client.queryMembers(of: channel, filter: membershipFilter, limit: 1).first?.createdAt
        let progressBar = ProgressBar(enabled: !file.isEmpty)
        let sent = try await client.channel(channel).sendMessage(text: text, attachments: payloads, progress: { progressBar.show($0) })
        progressBar.finish()
        var posted = sent
        if sent.type == .ephemeral {
            say("Only \(user) sees the answer to \(sent.command.map { "/" + $0 } ?? "the command"): \(Message.describeWithButtons(sent))")
            guard let press else { return }
            let (button, pressed): (AttachmentAction, Message?)
            do {
                (button, pressed) = try await client.press(press, on: sent, as: user)
            } catch let missing as ButtonNotFound {
                throw ValidationError(missing.message())
            }
            guard let result = pressed else {
                say("Pressed \(button.text ?? press): the message was removed, nothing posted")
                return
            }
            say("Pressed \(button.text ?? press): \(result.type == .ephemeral ? "only \(user) sees" : "posted") \(Message.describeWithButtons(result))")
            guard result.type != .ephemeral else { return }
            posted = result
        } else {
            say("Sent \(sent.id) to \(channel.rawValue) as \(user)")
        }
        let since = [joinedAt, posted.createdAt].compactMap { $0 }.min()
        try await RepliesWatch.show(in: channel, after: since, from: client, notBy: user, for: waitForReplies)
    }
}
