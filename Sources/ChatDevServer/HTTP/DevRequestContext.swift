import Hummingbird
import NIOCore
import Logging

/// The request context of every dev server request: the core context plus when the request
/// started, so every answer can report its `duration`.
public struct DevRequestContext: RequestContext {
    /// Hummingbird's core context.
    public var coreContext: CoreRequestContextStorage
    /// When handling began.
    let startedAt: ContinuousClock.Instant
    /// The address the request came from (the before-send hook's `request_info.ip`).
    let remoteIP: String?

    /// A context for a new request.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        startedAt = .now
        remoteIP = source.channel.remoteAddress?.ipAddress
    }

    /// JSON bodies are read by the handlers themselves, with their own limits.
    public var maxUploadSize: Int { 2 * 1024 * 1024 }

    /// The `duration` string Stream puts in every answer: processing time in milliseconds.
    var durationText: String {
        let elapsed = ContinuousClock.now - startedAt
        return String(format: "%.2fms", elapsed.seconds * 1000)
    }
}

import Foundation
