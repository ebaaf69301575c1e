import CCurl
import Foundation
import Synchronization

/// One transfer on the curl engine: its easy handle, the C resources it owns, and what it has
/// received so far.
///
/// Thread use: built on the caller's thread, then touched only by the engine thread (curl's
/// callbacks run there too). Two things cross threads: `isCancelled` (atomic) and the
/// continuation, which is resumed exactly once (`finish` is guarded by `isFinished`).
final class CurlTransfer: @unchecked Sendable {
    let easy: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var mime: OpaquePointer?
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    private let destination: TransportRequest.Destination
    private let progressHandler: (@Sendable (TransferProgress) -> Void)?
    private var lastProgress = TransferProgress(uploaded: -1, uploadTotal: -1, downloaded: -1, downloadTotal: -1)
    private var output: FileHandle?
    private var body = Data()
    private(set) var headers: [(name: String, value: String)] = []
    private(set) var failure: TransportError?
    /// Whether the transfer was ended on purpose once `.head(limit:)` had its bytes.
    private var hasHead = false
    let isCancelled = Atomic<Bool>(false)
    private let isFinished = Atomic<Bool>(false)
    var continuation: CheckedContinuation<TransportResponse, any Error>?
    let url: URL
    /// Streamed transfers (``CurlHTTPTransport/stream(_:)``): where the body goes, the caller
    /// waiting for the status and headers, and the body handed to it with them.
    var bodyBuffer: ResponseBodyBuffer?
    var headContinuation: CheckedContinuation<StreamedTransportResponse, any Error>?
    var bodyStream: HTTPBodyStream?
    /// Set by the reader of a paused streamed body; the engine thread resumes the transfer.
    let wantsResume = Atomic<Bool>(false)

    init(_ request: TransportRequest, caFile: String?) throws {
        guard let easy = curl_easy_init() else {
            throw TransportError(code: .other, message: "libcurl could not create a transfer")
        }
        self.easy = easy
        self.destination = request.destination
        self.progressHandler = request.progress
        self.url = request.url
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        do {
            try configure(request, caFile: caFile)
        } catch {
            release()
            throw error
        }
    }

    private func check(_ code: CURLcode, _ what: String) throws {
        guard code == CURLE_OK else {
            throw TransportError(code: .invalidRequest, message: "\(what): \(String(cString: curl_easy_strerror(code)))")
        }
    }

    private func configure(_ request: TransportRequest, caFile: String?) throws {
        try check(cbk_easy_setopt_string(easy, CURLOPT_URL, request.url.absoluteString), "URL \(request.url)")
        try check(cbk_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, request.method), "method")
        if request.method == "HEAD" { try check(cbk_easy_setopt_long(easy, CURLOPT_NOBODY, 1), "HEAD") }
        try check(cbk_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer), "error buffer")
        try check(cbk_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1), "no signals")
        try check(cbk_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 1), "redirects")
        try check(cbk_easy_setopt_long(easy, CURLOPT_MAXREDIRS, 5), "redirect limit")
        try check(cbk_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 1), "TLS peer verification")
        try check(cbk_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 2), "TLS host verification")
        if let caFile { try check(cbk_easy_setopt_string(easy, CURLOPT_CAINFO, caFile), "CA file") }
        try check(cbk_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Int(request.connectTimeout.milliseconds)), "connect timeout")
        // An idle timeout: fail when fewer than 1 byte/s moves for that long.
        try check(cbk_easy_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, 1), "idle limit")
        try check(cbk_easy_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, max(1, Int(request.idleTimeout.milliseconds / 1000))), "idle time")
        try check(cbk_easy_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, ""), "encodings")

        // libcurl would wait up to a second for "100 Continue" before sending a large body.
        var lines = request.headers.map { "\($0.name): \($0.value)" } + ["Expect:"]
        switch request.body {
        case .none:
            break
        case .data(let data, let contentType):
            lines.append("Content-Type: \(contentType)")
            try data.withUnsafeBytes { bytes in
                try check(cbk_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count)), "body size")
                try check(cbk_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress ?? UnsafeRawPointer(errorBuffer))), "body")
            }
        case .multipart(let parts):
            try attach(parts)
        }
        for line in lines { headerList = curl_slist_append(headerList, line) }
        try check(cbk_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList), "headers")

        if case .file(let file) = destination {
            guard FileManager.default.createFile(atPath: file.path, contents: nil), let handle = try? FileHandle(forWritingTo: file) else {
                throw TransportError(code: .writeFailed, message: "cannot write the download to \(file.path)")
            }
            output = handle
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        try check(cbk_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION, curlWriteBody), "body callback")
        try check(cbk_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, me), "body callback data")
        try check(cbk_easy_setopt_data_callback(easy, CURLOPT_HEADERFUNCTION, curlWriteHeader), "header callback")
        try check(cbk_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, me), "header callback data")
        try check(cbk_easy_setopt_long(easy, CURLOPT_NOPROGRESS, 0), "progress")
        try check(cbk_easy_setopt_progress_callback(easy, curlProgress), "progress callback")
        try check(cbk_easy_setopt_pointer(easy, CURLOPT_XFERINFODATA, me), "progress callback data")
        try check(cbk_easy_setopt_pointer(easy, CURLOPT_PRIVATE, me), "private data")
    }

    /// Builds the curl MIME body; file parts are read from disk by curl while sending.
    private func attach(_ parts: [MultipartPart]) throws {
        mime = curl_mime_init(easy)
        for part in parts {
            guard let mimePart = curl_mime_addpart(mime) else { throw TransportError(code: .other, message: "curl_mime_addpart failed") }
            try check(curl_mime_name(mimePart, part.name), "part name")
            switch part.content {
            case .data(let data):
                try data.withUnsafeBytes { bytes in
                    let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self)
                    try check(curl_mime_data(mimePart, base, bytes.count), "part data")
                }
            case .file(let file):
                guard FileManager.default.isReadableFile(atPath: file.path) else {
                    throw TransportError(code: .fileUnreadable, message: "cannot read \(file.path)")
                }
                try check(curl_mime_filedata(mimePart, file.path), "part file \(file.path)")
            }
            if let filename = part.filename { try check(curl_mime_filename(mimePart, filename), "part file name") }
            if let contentType = part.contentType { try check(curl_mime_type(mimePart, contentType), "part content type") }
        }
        try check(cbk_easy_setopt_mime(easy, mime), "multipart body")
    }

    // MARK: Callbacks (engine thread)

    func receiveBody(_ buffer: UnsafeMutablePointer<CChar>?, _ count: Int) -> Int {
        guard let buffer, count > 0 else { return count }
        let bytes = UnsafeRawBufferPointer(start: buffer, count: count)
        if let bodyBuffer {
            deliverHead()
            return bodyBuffer.offer(Data(bytes)) ? count : CurlTransfer.pauseWriting
        }
        switch destination {
        case .memory(let limit):
            guard body.count + count <= limit else {
                failure = TransportError(code: .tooLarge, message: "the response from \(url.host ?? "the server") is larger than \(limit) bytes")
                return 0
            }
            body.append(contentsOf: bytes)
        case .head(let limit):
            let wanted = limit - body.count
            body.append(contentsOf: bytes.prefix(max(wanted, 0)))
            // Returning less than given ends the transfer (CURLE_WRITE_ERROR), read as done.
            if body.count >= limit {
                hasHead = true
                return 0
            }
        case .file(let file):
            do {
                try output?.write(contentsOf: bytes)
            } catch {
                failure = TransportError(code: .writeFailed, message: "writing the download to \(file.path) failed: \(error)")
                return 0
            }
        }
        return count
    }

    func receiveHeader(_ buffer: UnsafeMutablePointer<CChar>?, _ count: Int) -> Int {
        guard let buffer else { return count }
        let line = String(decoding: UnsafeRawBufferPointer(start: buffer, count: count), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        if line.hasPrefix("HTTP/") {
            // A new response (after 100 Continue or a redirect) replaces the earlier headers.
            headers.removeAll()
        } else if let colon = line.firstIndex(of: ":") {
            headers.append(
                (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        } else if line.isEmpty, bodyBuffer != nil {
            deliverHead()
        }
        return count
    }

    func reportProgress(downloadTotal: Int64, downloaded: Int64, uploadTotal: Int64, uploaded: Int64) -> Int32 {
        if isCancelled.load(ordering: .relaxed) { return 1 }
        guard let progressHandler else { return 0 }
        let progress = TransferProgress(uploaded: uploaded, uploadTotal: uploadTotal, downloaded: downloaded, downloadTotal: downloadTotal)
        if progress != lastProgress {
            lastProgress = progress
            progressHandler(progress)
        }
        return 0
    }

    // MARK: Completion

    /// Resumes the caller once with the outcome of `code`, then frees everything.
    func finish(_ code: CURLcode) {
        guard !isFinished.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if bodyBuffer != nil { return finishStream(code) }
        let outcome: Result<TransportResponse, any Error>
        if isCancelled.load(ordering: .relaxed) {
            outcome = .failure(CancellationError())
        } else if let failure {
            outcome = .failure(failure)
        } else if code != CURLE_OK, !(code == CURLE_WRITE_ERROR && hasHead) {
            outcome = .failure(CurlTransfer.error(for: code, detail: String(cString: errorBuffer), url: url))
        } else {
            var status = 0
            _ = cbk_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
            try? output?.close()
            output = nil
            var file: URL?
            if case .file(let url) = destination { file = url }
            if let progressHandler, let final = finalProgress() { progressHandler(final) }
            outcome = .success(TransportResponse(status: status, headers: headers, body: body, file: file))
        }
        release()
        continuation?.resume(with: outcome)
        continuation = nil
    }

    /// One last progress report with the final byte counts, so a listener always sees 100%.
    private func finalProgress() -> TransferProgress? {
        var uploaded: curl_off_t = 0
        var downloaded: curl_off_t = 0
        _ = cbk_easy_getinfo_off(easy, CURLINFO_SIZE_UPLOAD_T, &uploaded)
        _ = cbk_easy_getinfo_off(easy, CURLINFO_SIZE_DOWNLOAD_T, &downloaded)
        let final = TransferProgress(
            uploaded: Int64(uploaded), uploadTotal: max(lastProgress.uploadTotal, Int64(uploaded)), downloaded: Int64(downloaded),
            downloadTotal: max(lastProgress.downloadTotal, Int64(downloaded)))
        return final == lastProgress ? nil : final
    }

    func release() {
        try? output?.close()
        output = nil
        if let mime { curl_mime_free(mime) }
        mime = nil
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
        curl_easy_cleanup(easy)
        errorBuffer.deallocate()
    }

    static func error(for code: CURLcode, detail: String, url: URL) -> TransportError {
        let reason = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        let host = url.host ?? url.absoluteString
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_PROXY:
            return TransportError(code: .connectionFailed, message: "cannot connect to \(host): \(reason)")
        case CURLE_OPERATION_TIMEDOUT:
            return TransportError(code: .timedOut, message: "\(host) did not answer in time: \(reason)")
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM:
            return TransportError(
                code: .tlsFailure,
                message: "the TLS certificate of \(host) does not verify, so nothing was sent: \(reason)")
        case CURLE_READ_ERROR:
            return TransportError(code: .fileUnreadable, message: "a file being uploaded could not be read: \(reason)")
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE:
            return TransportError(code: .connectionLost, message: "the connection to \(host) broke: \(reason)")
        default:
            return TransportError(code: .other, message: "\(host): \(reason) (curl \(code.rawValue))")
        }
    }
}

extension Duration {
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}

// C callbacks: they find their transfer through the user-data pointer.

private let curlWriteBody: cbk_data_callback = { buffer, size, count, userdata in
    guard let userdata else { return 0 }
    return Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue().receiveBody(buffer, size * count)
}

private let curlWriteHeader: cbk_data_callback = { buffer, size, count, userdata in
    guard let userdata else { return 0 }
    return Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue().receiveHeader(buffer, size * count)
}

private let curlProgress: cbk_progress_callback = { userdata, downloadTotal, downloaded, uploadTotal, uploaded in
    guard let userdata else { return 0 }
    return Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
        .reportProgress(downloadTotal: Int64(downloadTotal), downloaded: Int64(downloaded), uploadTotal: Int64(uploadTotal), uploaded: Int64(uploaded))
}
