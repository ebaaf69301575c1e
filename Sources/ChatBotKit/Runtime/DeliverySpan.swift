import ChatModels
import Tracing

/// The span of one delivery: from the moment the bot took it (so time queued behind the
/// channel's earlier messages shows) to the end of its last handler. The HTTP calls its
/// handlers make are its children (the client's spans), and failures inside the bot's
/// routing mark it through the task-local ``current``.
enum DeliverySpan {
    /// The span of the delivery this task is handling.
    @TaskLocal static var current: (any Span)?

    /// Starts the span of `delivery` for `bot`, dated from when the bot took it.
    static func start(_ delivery: Delivery, bot: String, cid: ChannelId, tracer: any Tracer) -> any Span {
        let span = tracer.startSpan(delivery.spanName, context: .topLevel, ofKind: .consumer, at: delivery.acceptedAt)
        guard span.isRecording else { return span }
        // One read and one write of the span's attributes, not one of each per attribute.
        span.updateAttributes { attributes in
            attributes["chatbotkit.bot"] = bot
            attributes["chat.channel.cid"] = cid.rawValue
            if let message = delivery.message {
                attributes["chat.message.id"] = message.id
                if !message.attachments.isEmpty { attributes["chatbotkit.attachment.types"] = message.attachments.map(\.type.rawValue) }
            }
        }
        return span
    }

    /// Marks the current delivery failed: a handler or middleware threw.
    static func handlerFailed(_ error: BotError) {
        guard let span = current else { return }
        span.recordError(error)
        span.setStatus(SpanStatus(code: .error, message: error.message))
    }

    /// Notes on the current delivery an attachment that did not fit its payload type.
    static func decodingFailed(_ failure: AttachmentDecodingFailure) {
        guard let span = current, span.isRecording else { return }
        var attributes = SpanAttributes()
        attributes["chatbotkit.attachment.type"] = failure.type.rawValue
        attributes["chatbotkit.field_path"] = failure.fieldPath
        span.addEvent(SpanEvent(name: "attachment decoding failed", attributes: attributes))
    }
}

extension Delivery {
    /// `HandleMessage`, `HandleEdit`, `HandleDeletion`, `HandleUndeletion`, `HandleReaction`, `HandleReminder`,
    /// `HandleTruncation`, `HandleUserMessagesDeletion`, `HandleEvent`, `HandleAddition`,
    /// `HandleSchedule` or `HandleConversationTimeout`.
    var spanName: String {
        switch work {
        case .truncation: "HandleTruncation"
        case .userMessagesDeletion: "HandleUserMessagesDeletion"
        case .event: "HandleEvent"
        case .addition: "HandleAddition"
        case .schedule: "HandleSchedule"
        case .conversationTimeout: "HandleConversationTimeout"
        case .message(.newMessage, _): "HandleMessage"
        case .message(.edit, _): "HandleEdit"
        case .message(.deletion, _): "HandleDeletion"
        case .message(.undeletion, _): "HandleUndeletion"
        case .message(.reaction, _): "HandleReaction"
        case .message(.reminderDue, _): "HandleReminder"
        case .message(.pollVote, _): "HandlePollVote"
        case .message(.pollClosed, _): "HandlePollClosed"
        case .message(.location, _): "HandleLocation"
        }
    }
}
