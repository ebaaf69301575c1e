import CCurl
import Foundation
import Synchronization

/// A transfer whose body is read as it arrives (``CurlHTTPTransport/stream(_:)``).
extension CurlTransfer {
    /// What a write callback returns to pause the transfer (`CURL_WRITEFUNC_PAUSE`): curl keeps
    /// the chunk and offers it again once the transfer is resumed.
    static let pauseWriting = 0x1000_0001

    /// Makes this a streamed transfer: its body goes to a bounded buffer of `capacity` bytes,
    /// read through ``HTTPBodyStream``; `engine` resumes it when the reader catches up. The body
    /// keeps `owner` (the transport) alive: a transport whose last user let go while the body is
    /// still being read would otherwise shut its engine down and abort the transfer.
    func streamBody(capacity: Int, engine: CurlEngine, owner: some AnyObject & Sendable) {
        let resume: @Sendable () -> Void = { [weak self] in
            self?.wantsResume.store(true, ordering: .relaxed)
            engine.wake()
        }
        let cancel: @Sendable () -> Void = { [weak self] in
            guard let self, !self.isCancelled.exchange(true, ordering: .relaxed) else { return }
            engine.wake()
        }
        let buffer = ResponseBodyBuffer(capacity: capacity, resume: resume, cancel: cancel)
        bodyBuffer = buffer
        bodyStream = HTTPBodyStream(
            next: {
                _ = owner
                return try await buffer.next()
            }, cancel: cancel)
    }

    /// Hands the status and headers to the caller once the final response's headers are in
    /// (not those of a `100 Continue`, nor of a redirect that curl follows).
    func deliverHead() {
        guard let head = headContinuation, let body = bodyStream else { return }
        var status = 0
        _ = cbk_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        guard status >= 200 else { return }
        if (300..<400).contains(status), headers.contains(where: { $0.name == "location" }) { return }
        headContinuation = nil
        // From here the caller holds the only reference: dropping it cancels the transfer.
        bodyStream = nil
        head.resume(returning: StreamedTransportResponse(status: status, headers: headers, body: body))
    }

    /// Ends a streamed transfer: the body's reader gets the end or the failure, and a caller
    /// still waiting for the headers gets them (with an empty body) or the failure.
    func finishStream(_ code: CURLcode) {
        let outcome: Result<Void, any Error>
        if isCancelled.load(ordering: .relaxed) {
            outcome = .failure(CancellationError())
        } else if let failure {
            outcome = .failure(failure)
        } else if code != CURLE_OK {
            outcome = .failure(CurlTransfer.error(for: code, detail: String(cString: errorBuffer), url: url))
        } else {
            outcome = .success(())
        }
        if case .success = outcome { deliverHead() }
        release()
        bodyBuffer?.finish(outcome)
        if let head = headContinuation {
            headContinuation = nil
            if case .failure(let error) = outcome { head.resume(throwing: error) }
        }
        bodyStream = nil
    }

    /// Fails a transfer that never started (the engine was shut down).
    func refuse(_ error: TransportError) {
        continuation?.resume(throwing: error)
        continuation = nil
        headContinuation?.resume(throwing: error)
        headContinuation = nil
        bodyBuffer?.finish(.failure(error))
    }
}
