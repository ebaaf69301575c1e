import ChatClient
import ChatLocking
import ChatModels
import Foundation

/// What `bots chat` does with each line typed, and how it shows the channel's events.
final class ChatSession: Sendable {
    let client: ChatClient
    let channel: ChannelId
    let user: String
    /// The last answer shown to this user alone (a custom command's), for `:press`.
    private let lastEphemeral = Locked<Message?>(nil)
    /// The last message by someone else shown, for `:react`.
    private let lastShown = Locked<Message?>(nil)
    /// The last message with a poll shown, for `:vote`.
    private let lastPoll = Locked<Message?>(nil)
    /// The user's own last live location of this session, for `:move` and `:stop`.
    private let lastShared = Locked<Message?>(nil)
    /// The user's own last message of this session, for `:edit` and `:delete`.
    private let lastPosted = Locked<Message?>(nil)
    /// Whether the messages seen in this session were pinned, so an update that unpins one
    /// shows as that rather than as an edit.
    private let pins = Locked(PinMemory())

    init(client: ChatClient, channel: ChannelId, user: String) {
        self.client = client
        self.channel = channel
        self.user = user
    }

    static let help = """
        A line is a message (a /command too). Lines that start with a colon:
          :file PATH [TYPE]  upload a file, with a progress bar, and post it (TYPE: file, image, video, audio, voiceRecording)
          :attach JSON       post a custom attachment, such as :attach {"type":"workout","workout-distance-meters":5000}
          :press VALUE       press a button of the last answer only you see (a custom command's)
          :react TYPE        react to the last message shown (like, remove, …)
          :vote N            vote for option N of the last poll shown (or for the option with that text)
          :share LAT LON [FOR] [TEXT]  share where you are, live for FOR (such as 30m) if given: :share 52.52 13.405 30m run
          :move LAT LON      move your live location         :stop  stop sharing it
          :remind IN         be reminded of the last message shown in IN, such as :remind 10m (the service tells you)
          :edit TEXT         change the text of your last message (its attachments stay)
          :delete            delete your last message
          :help              this list
          :quit              end (so does Ctrl-D)
        Start a message with two colons to post one that starts with a colon.
        """

    /// Does what `line` says; false once it says to stop.
    func take(_ line: String) async throws -> Bool {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return true }
        guard trimmed.hasPrefix(":"), !trimmed.hasPrefix("::") else {
            try await post(text: trimmed.hasPrefix("::") ? String(trimmed.dropFirst()) : trimmed)
            return true
        }
        let word = trimmed.dropFirst().prefix { !$0.isWhitespace }
        let rest = trimmed.dropFirst(1 + word.count).trimmingCharacters(in: .whitespaces)
        switch word {
        case "quit", "q":
            return false
        case "help":
            say(Self.help)
        case "file":
            let parts = rest.split(separator: " ", maxSplits: 1).map(String.init)
            guard let path = parts.first else { throw ChatLineError(":file needs a path, such as :file holiday.png") }
            let type = parts.count > 1 ? AttachmentType(rawValue: parts[1]) : nil
            let file: AnyAttachmentPayload
            do {
                file = try AttachmentArguments.upload(path, type: type)
            } catch {
                throw ChatLineError("\(error.message) (nothing was sent)")
            }
            let progressBar = ProgressBar(enabled: true)
            try await post(attachments: [file]) { progressBar.show($0) }
            progressBar.finish()
        case "attach":
            guard !rest.isEmpty else { throw ChatLineError(":attach needs JSON, such as :attach {\"type\":\"workout\"}") }
            let payload: AnyAttachmentPayload
            do {
                payload = try AttachmentArguments.customPayload(rest, from: ":attach")
            } catch {
                throw ChatLineError("\(error.message) (nothing was sent)")
            }
            try await post(attachments: [payload])
        case "react":
            guard let message = lastShown.withLock({ $0 }) else { throw ChatLineError(":react: no message by anyone else is shown yet") }
            guard !rest.isEmpty, !rest.contains(" "), rest.count <= 30 else {
                throw ChatLineError(":react needs one reaction type of at most 30 characters, such as :react like")
            }
            try await client.sendReaction(rest, to: message.id, as: user)
            say("(you reacted \(rest) to \(message.user?.id ?? "?")'s \"\(message.text)\")")
        case "vote":
            guard let message = lastPoll.withLock({ $0 }), let poll = message.poll else { throw ChatLineError(":vote: no poll is shown yet") }
            let chosen = Int(rest).flatMap { poll.options.indices.contains($0 - 1) ? poll.options[$0 - 1] : nil }
                ?? poll.options.first { $0.text.caseInsensitiveCompare(rest) == .orderedSame }
            guard let option = chosen else {
                throw ChatLineError(":vote needs an option of \"\(poll.name)\": \(poll.numberedOptions) (nothing was sent)")
            }
            try await client.castPollVote(on: message.id, poll: poll.id, option: option.id, as: user)
            say("(you voted \(option.text) on \"\(poll.name)\")")
        case "share":
            try await share(rest)
        case "move":
            guard let shared = lastShared.withLock({ $0 }) else { throw ChatLineError(":move: you share no live location in this session yet") }
            let words = rest.split(separator: " ").map(String.init)
            guard words.count == 2, let latitude = Double(words[0]), let longitude = Double(words[1]) else {
                throw ChatLineError(":move needs where to, in degrees, such as :move 52.521 13.41 (nothing was sent)")
            }
            let moved = try await client.updateLiveLocation(shared.id, latitude: latitude, longitude: longitude, as: user)
            say("(your location moved to \(moved.coordinates))")
        case "stop":
            guard let shared = lastShared.withLock({ $0 }) else { throw ChatLineError(":stop: you share no live location in this session yet") }
            try await client.stopLiveLocation(shared.id, as: user)
            lastShared.withLock { $0 = nil }
            say("(you stopped sharing your location)")
        case "remind":
            guard let message = lastShown.withLock({ $0 }) else { throw ChatLineError(":remind: no message by anyone else is shown yet") }
            guard let delay = DurationText.parse(rest) else {
                throw ChatLineError(":remind needs when, such as :remind 10m or :remind 2h (nothing was set)")
            }
            let due = Date().addingTimeInterval(delay.timeInterval)
            try await client.setReminder(for: message.id, at: due, as: user)
            say("(you will be reminded of \(message.user?.id ?? "?")'s \"\(message.text)\" in \(DurationText.format(delay)))")
        case "edit":
            guard let mine = lastPosted.withLock({ $0 }) else { throw ChatLineError(":edit: you have posted nothing in this session yet") }
            guard !rest.isEmpty else { throw ChatLineError(":edit needs the new text, such as :edit 6 km, not 5") }
            let edited = try await client.partialUpdateMessage(mine.id, set: ["text": .string(rest)], as: user)
            lastPosted.withLock { $0 = edited }
            say("(you edited your message: \(edited.textAndAttachmentTypes))")
        case "delete":
            guard let mine = lastPosted.withLock({ $0 }) else { throw ChatLineError(":delete: you have posted nothing in this session yet") }
            guard rest.isEmpty else { throw ChatLineError(":delete takes nothing after it: it deletes your last message") }
            // The channel's message.deleted says it, as for anyone's message.
            try await client.deleteMessage(mine.id)
            lastPosted.withLock { $0 = nil }
        case "press":
            guard let answer = lastEphemeral.withLock({ $0 }) else { throw ChatLineError(":press: no answer only you see has buttons yet") }
            let (button, result): (AttachmentAction, Message?)
            do {
                (button, result) = try await client.press(rest, on: answer, as: user)
            } catch let missing as ButtonNotFound {
                throw ChatLineError(missing.message(pressedWith: ":press"))
            }
            lastEphemeral.withLock { $0 = nil }
            guard let result else {
                say("(pressed \(button.text ?? rest): the answer was removed, nothing posted)")
                return true
            }
            show(result, pressed: button.text ?? rest)
        default:
            throw ChatLineError(":\(word) is not a command here; :help lists them (start with :: to post a text that begins with a colon)")
        }
        return true
    }

    /// `:share LAT LON [FOR] [TEXT]`: a static location, or a live one for FOR.
    private func share(_ arguments: String) async throws {
        var words = arguments.split(separator: " ").map(String.init)
        guard words.count >= 2, let latitude = Double(words[0]), let longitude = Double(words[1]) else {
            throw ChatLineError(":share needs where, in degrees, such as :share 52.52 13.405 30m (nothing was sent)")
        }
        words.removeFirst(2)
        let duration = words.first.flatMap(DurationText.parse)
        if duration != nil { words.removeFirst() }
        let endAt = duration.map { Date().addingTimeInterval($0.timeInterval) }
        let sent = try await client.channel(channel).shareLocation(
            latitude: latitude, longitude: longitude, until: endAt, text: words.joined(separator: " "), deviceId: "bots-chat", as: user)
        lastPosted.withLock { $0 = sent }
        if endAt != nil { lastShared.withLock { $0 = sent } }
        say("(you shared \(sent.sharedLocation.map(\.summary) ?? "a location"))")
    }

    private func post(text: String = "", attachments: [AnyAttachmentPayload] = [], progress: (@Sendable (Double) -> Void)? = nil) async throws {
        let sent = try await client.channel(channel).sendMessage(text: text, attachments: attachments, progress: progress)
        if sent.type == .ephemeral || sent.type == .error {
            show(sent, pressed: nil)
        } else {
            lastPosted.withLock { $0 = sent }
        }
    }

    /// An answer to this user alone: a custom command's preview (kept for `:press`) or a refusal.
    private func show(_ message: Message, pressed: String?) {
        let prefix = pressed.map { "(pressed \($0)) " } ?? ""
        switch message.type {
        case .ephemeral:
            lastEphemeral.withLock { $0 = message }
            say("\(prefix)only you see: \(Message.describeWithButtons(message))")
        case .error:
            say("\(prefix)refused: \(message.text)")
        default:
            say("\(prefix)posted: \(Message.describeWithButtons(message))")
        }
    }

    /// Shows an event (``line(for:me:wasPinned:)``), keeping the last message by someone else for `:react`.
    func show(_ event: Event) {
        let wasPinned = event.message.map { message in
            pins.withLock { $0.remember(message.id, isPinned: message.isPinned == true) }
        } ?? false
        guard let line = Self.line(for: event, me: user, wasPinned: wasPinned) else { return }
        if event.type == .messageNew, let message = event.message {
            lastShown.withLock { $0 = message }
            if message.poll != nil { lastPoll.withLock { $0 = message } }
        }
        say(line)
    }

    /// How an event shows: others' messages, edits, deletions, undeletions and reactions, pins of
    /// anyone's, a user's messages deleted at once, reminders come due, others joining and leaving, and others
    /// deactivated, reactivated or deleted; nil for the rest (the user's own messages,
    /// which they typed, typing indicators, reads). `wasPinned` is whether the message was
    /// pinned when last seen.
    static func line(for event: Event, me: String, wasPinned: Bool = false) -> String? {
        if event.type == .memberAdded || event.type == .memberRemoved, let member = event.member, member.userId != me {
            // By id, as messages show their senders.
            return "(\(member.userId) \(event.type == .memberAdded ? "joined" : "left"))"
        }
        if event.type == .userMessagesDeleted, let user = event.user {
            // One event for all of them: the service sends no message.deleted for each.
            return "(all of \(user.id == me ? "your" : "\(user.id)'s") messages here were deleted)"
        }
        if event.type == .notificationReminderDue, let reminder = event.extraData["reminder"] {
            let author = reminder["message"]?["user"]?["id"]?.stringValue ?? "?"
            return "(reminder: \(author == me ? "your" : "\(author)'s") \"\(reminder["message"]?["text"]?.stringValue ?? "")\")"
        }
        if event.type == .pollClosed, let poll = event.poll {
            let leading = poll.leadingOptions.map(\.text).joined(separator: " and ")
            return "(poll \"\(poll.name)\" closed\(leading.isEmpty ? " without votes" : ": \(leading) \(poll.leadingOptions.count > 1 ? "lead" : "leads")"))"
        }
        let lifecycle: [EventType: String] = [.userDeactivated: "deactivated", .userReactivated: "reactivated", .userDeleted: "deleted"]
        if let what = lifecycle[event.type], let user = event.user, user.id != me {
            return "(\(user.id) was \(what))"
        }
        guard let message = event.message else { return nil }
        let author = message.user?.id ?? "?"
        let whose = author == me ? "your" : "\(author)'s"
        let inThread = message.parentId != nil ? " (in a thread)" : ""
        switch event.type {
        case .messageNew where author != me:
            return "\(author)\(inThread): \(message.textAndAttachmentTypes)"
        case .messageUpdated where message.isPinned == true && !wasPinned && message.pinnedAt == message.updatedAt:
            // Pinning updates the message at the moment it records as its pin.
            let pinner = message.pinnedBy?.id ?? "?"
            let until = message.pinExpires.map { " until \(RFC3339.string(from: $0))" } ?? ""
            return "(\(pinner == me ? "you" : pinner) pinned \(whose) \"\(message.text)\"\(until))"
        case .messageUpdated where message.isPinned != true && wasPinned:
            return "(\(whose) \"\(message.text)\" was unpinned)"
        case .messageUpdated where message.movedLocation != nil:
            guard author != me, let location = message.movedLocation else { return nil }
            return location.isStopped ? "(\(author) stopped sharing their location)" : "(\(author)'s location moved to \(location.coordinates))"
        case .messageUpdated where author != me:
            return "\(author) edited\(inThread): \(message.textAndAttachmentTypes)"
        case .messageDeleted:
            return "(\(whose) message \"\(message.text)\" was deleted)"
        case .messageUndeleted:
            let restorer = (event.user?.id).map { " by \($0 == me ? "you" : $0)" } ?? ""
            return "(\(whose) message \"\(message.text)\" was undeleted\(restorer))"
        case .reactionNew:
            guard let reactor = event.reactingUserId, reactor != me else { return nil }
            return "(\(reactor) reacted \(event.reaction?.type ?? "?") to \(author == me ? "your" : "\(author)'s") \"\(message.text)\")"
        default:
            return nil
        }
    }
}

/// Whether the last messages seen were pinned: the most recent 1,000, by id.
struct PinMemory: Sendable {
    private var pinned: [String: Bool] = [:]
    private var order: [String] = []
    private var start = 0
    static let capacity = 1_000

    /// Records `isPinned` for `id`; answers whether it was pinned when last seen (false if
    /// it was not seen).
    mutating func remember(_ id: String, isPinned: Bool) -> Bool {
        if let before = pinned.updateValue(isPinned, forKey: id) { return before }
        order.append(id)
        if order.count - start > Self.capacity {
            pinned[order[start]] = nil
            start += 1
            if start > Self.capacity {
                order.removeFirst(start)
                start = 0
            }
        }
        return false
    }
}

/// A line `bots chat` cannot do: what is wrong with it; nothing was sent.
struct ChatLineError: Error {
    /// What is wrong, naming the command.
    let message: String
    init(_ message: String) { self.message = message }
}
