import ChatModels
import Foundation

extension ChatClient {
    /// Asks the service to export up to 25 channels (their messages, members and the channels
    /// themselves) to a JSON file and returns the export's task id (`POST /export_channels`;
    /// needs the API secret). Truncated messages and deleted channels are left out unless
    /// asked for; `clearDeletedMessageText` blanks the text of deleted messages.
    public func exportChannels(
        _ channels: [ChannelExportRequest], includeTruncatedMessages: Bool = false, includeSoftDeletedChannels: Bool = false,
        clearDeletedMessageText: Bool = false
    ) async throws -> String {
        guard (1...25).contains(channels.count) else {
            throw ChatClientError(code: .invalidRequest, message: "an export takes 1 to 25 channels, not \(channels.count)")
        }
        var body: JSONObject = ["channels": .array(channels.map(\.json))]
        if includeTruncatedMessages { body["include_truncated_messages"] = true }
        if includeSoftDeletedChannels { body["include_soft_deleted_channels"] = true }
        if clearDeletedMessageText { body["clear_deleted_message_text"] = true }
        return try await taskId(of: .post("/export_channels", body, operation: "ExportChannels"))
    }

    /// An export as it stands (`GET /export_channels/{id}`): once completed, with a freshly
    /// signed link to its file.
    public func channelExport(_ taskId: String) async throws -> ChannelExportTask {
        let operation = "GetExportChannelsStatus"
        let response = try await perform(.get("/export_channels/\(Endpoint.escape(taskId))", operation: operation))
        guard let status = response["status"]?.stringValue else {
            throw ChatClientError(code: .invalidResponse, message: "\(operation) answered without a status for export \(taskId)")
        }
        let url = response["result"]?["url"]?.stringValue.flatMap(URL.init(string:))
        let error = [response["error"], response["result"]?["error"]].compactMap { $0 }.first { !$0.isNull }.map(Self.errorText)
        return ChannelExportTask(id: taskId, status: status, url: url, error: error)
    }

    /// Waits for an export to complete (asking again with growing pauses, up to `timeout`) and
    /// downloads its file to `destination` (a temporary file by default), streamed to disk.
    /// An expired link, or one the file host answers with 403, is replaced by asking for the
    /// export again, which signs a fresh one. A failed export, or one still running at the
    /// timeout, is an error saying so.
    public func downloadChannelExport(
        _ taskId: String, to destination: URL? = nil, timeout: Duration = .seconds(300), progress: (@Sendable (Int64, Int64) -> Void)? = nil
    ) async throws -> URL {
        let link = try await completedExportLink(taskId, timeout: timeout)
        return try await traced("DownloadFile", method: "GET", url: link) { span in
            try await downloadFile(from: link, naming: "export \(taskId)", to: destination, progress: progress, span: span) { [self] _ in
                try await completedExportLink(taskId, timeout: timeout)
            }
        }
    }

    /// Exports one channel (all of it, or the messages posted between `since` and `until`)
    /// and reads the file: ``exportChannels(_:includeTruncatedMessages:includeSoftDeletedChannels:clearDeletedMessageText:)``,
    /// ``downloadChannelExport(_:to:timeout:progress:)`` and ``ChannelExport/read(from:)`` in one.
    public func exportChannel(_ cid: ChannelId, since: Date? = nil, until: Date? = nil, timeout: Duration = .seconds(300)) async throws
        -> ChannelExport
    {
        let taskId = try await exportChannels([ChannelExportRequest(cid, messagesSince: since, messagesUntil: until)])
        let file = try await downloadChannelExport(taskId, timeout: timeout)
        defer { try? FileManager.default.removeItem(at: file) }
        guard let export = try ChannelExport.read(from: file).first(where: { $0.channel.cid == cid }) else {
            throw ChatClientError(code: .invalidResponse, message: "export \(taskId) does not hold channel \(cid)")
        }
        return export
    }

    /// A task's error as words: the text itself, or an error object's description or message.
    private static func errorText(_ error: RawJSON) -> String {
        error.stringValue ?? error["description"]?.stringValue ?? error["message"]?.stringValue ?? JSONWriter.string(error)
    }

    /// The file link of a completed export, waiting for it to complete.
    private func completedExportLink(_ taskId: String, timeout: Duration) async throws -> URL {
        let deadline = ContinuousClock.now + timeout
        var pause = Duration.milliseconds(200)
        while true {
            let task = try await channelExport(taskId)
            switch task.status {
            case "completed":
                guard let url = task.url else {
                    throw ChatClientError(code: .invalidResponse, message: "export \(taskId) completed without a link to its file")
                }
                return url
            case "failed":
                throw ChatClientError(code: .downloadFailed, message: "export \(taskId) failed: \(task.error ?? "the service gave no reason")")
            default:
                guard ContinuousClock.now + pause < deadline else {
                    throw ChatClientError(
                        code: .downloadFailed, message: "export \(taskId) is still \(task.status) after \(DurationText.format(timeout)); ask again later")
                }
                try await Task.sleep(for: pause)
                pause = min(pause * 2, .seconds(5))
            }
        }
    }
}
