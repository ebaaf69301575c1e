import CCurl
import ChatLocking
import Foundation
import Logging
import Synchronization

/// HTTP on libcurl: one multi handle driven by its own thread, any number of concurrent
/// transfers, bodies streamed from and to disk, progress, cancellation, TLS verified against
/// the system's CAs (or a CA file you give).
public final class CurlHTTPTransport: HTTPTransport {
    private let engine: CurlEngine
    private let caFile: String?

    /// A transport; `caFile` adds trusted certificates (PEM) for servers with a private CA.
    public init(caFile: String? = nil, logger: Logger = Logger(label: "chatbotkit.transport.http")) {
        self.caFile = caFile
        engine = CurlEngine(logger: logger)
    }

    deinit {
        engine.shutdown()
    }

    /// Performs a request; cancelling the calling task aborts the transfer at once.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let transfer = try CurlTransfer(request, caFile: caFile)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                transfer.continuation = continuation
                engine.submit(transfer)
            }
        } onCancel: {
            transfer.isCancelled.store(true, ordering: .relaxed)
            engine.wake()
        }
    }

    /// Performs a request and answers once its headers are in; the body is read as it arrives,
    /// with at most `bufferCapacity` bytes (256 KiB) waiting unread before the transfer pauses.
    /// Cancelling the calling task, the body's reader, or ``HTTPBodyStream/cancel()`` closes the
    /// connection at once.
    public func stream(_ request: TransportRequest) async throws -> StreamedTransportResponse {
        try await stream(request, bufferCapacity: 256 << 10)
    }

    /// ``stream(_:)`` with a buffer of `bufferCapacity` bytes.
    public func stream(_ request: TransportRequest, bufferCapacity: Int) async throws -> StreamedTransportResponse {
        let transfer = try CurlTransfer(request, caFile: caFile)
        transfer.streamBody(capacity: bufferCapacity, engine: engine, owner: self)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                transfer.headContinuation = continuation
                engine.submit(transfer)
            }
        } onCancel: {
            transfer.isCancelled.store(true, ordering: .relaxed)
            engine.wake()
        }
    }

    /// Stops the engine thread; transfers still running fail with ``TransportError/Code/shutDown``.
    public func shutdown() {
        engine.shutdown()
    }
}

/// The thread that owns the multi handle. Other threads only append to `incoming` and call
/// `curl_multi_wakeup`, the one multi call that is safe from any thread.
final class CurlEngine: @unchecked Sendable {
    private struct Shared {
        var incoming: [CurlTransfer] = []
        var stopping = false
    }

    private static let globalInit: Void = { _ = curl_global_init(Int(CURL_GLOBAL_ALL)) }()

    private let multi: UnsafeMutableRawPointer
    private let shared = Locked(Shared())
    private let stopped = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)
    private let logger: Logger
    /// Touched only by the engine thread.
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]

    init(logger: Logger) {
        CurlEngine.globalInit
        multi = curl_multi_init()
        self.logger = logger
    }

    func submit(_ transfer: CurlTransfer) {
        let accepted = shared.withLock { shared -> Bool in
            guard !shared.stopping else { return false }
            shared.incoming.append(transfer)
            return true
        }
        guard accepted else {
            transfer.refuse(TransportError(code: .shutDown, message: "the HTTP transport was shut down"))
            return
        }
        if !started.exchange(true, ordering: .acquiringAndReleasing) {
            let thread = Thread { [self] in run() }
            thread.name = "chatbotkit.curl"
            thread.start()
        }
        wake()
    }

    func wake() {
        _ = curl_multi_wakeup(multi)
    }

    /// Stops the thread and waits for it; safe to call more than once.
    func shutdown() {
        let wasRunning = shared.withLock { shared -> Bool in
            defer { shared.stopping = true }
            return !shared.stopping
        }
        guard wasRunning else { return }
        if started.load(ordering: .acquiring) {
            wake()
            stopped.wait()
        }
        curl_multi_cleanup(multi)
    }

    private func run() {
        var running: Int32 = 0
        while true {
            let (incoming, stopping) = shared.withLock { shared in
                defer { shared.incoming = [] }
                return (shared.incoming, shared.stopping)
            }
            for transfer in incoming {
                if transfer.isCancelled.load(ordering: .relaxed) {
                    transfer.finish(CURLE_ABORTED_BY_CALLBACK)
                    continue
                }
                curl_multi_add_handle(multi, transfer.easy)
                active[transfer.easy] = transfer
            }
            if stopping {
                for (easy, transfer) in active {
                    curl_multi_remove_handle(multi, easy)
                    transfer.finish(CURLE_ABORTED_BY_CALLBACK)
                }
                active.removeAll()
                stopped.signal()
                return
            }
            // Cancelled transfers stop now rather than at their next progress callback.
            for (easy, transfer) in active where transfer.isCancelled.load(ordering: .relaxed) {
                curl_multi_remove_handle(multi, easy)
                active.removeValue(forKey: easy)
                transfer.finish(CURLE_ABORTED_BY_CALLBACK)
            }
            // Streamed bodies paused because their reader fell behind, now caught up
            // (CURLPAUSE_CONT is 0: nothing paused).
            for (easy, transfer) in active where transfer.wantsResume.exchange(false, ordering: .relaxed) {
                _ = curl_easy_pause(easy, 0)
            }
            curl_multi_perform(multi, &running)
            var remaining: Int32 = 0
            while let message = curl_multi_info_read(multi, &remaining) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                let result = message.pointee.data.result
                curl_multi_remove_handle(multi, easy)
                active.removeValue(forKey: easy)?.finish(result)
            }
            curl_multi_poll(multi, nil, 0, active.isEmpty ? 10_000 : 250, nil)
        }
    }
}
