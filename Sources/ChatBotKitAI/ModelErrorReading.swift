import ChatModels
import ChatTransport
import Foundation

/// A refused request's ``ModelError``, from its status, headers and body (OpenAI's
/// `{"error": {"message", "code"}}`, FastAPI's `{"detail"}`, or plain text).
enum ModelErrorReading {
    /// Reads at most 64 KiB of the body and maps the answer to an error.
    static func error(
        status: Int, header: (String) -> String?, body: HTTPBodyStream, model: String, url: URL
    ) async -> ModelError {
        var bytes = Data()
        do {
            for try await chunk in body {
                bytes.append(chunk.prefix(65_536 - bytes.count))
                if bytes.count >= 65_536 { break }
            }
        } catch {}
        body.cancel()
        return self.error(status: status, retryAfter: header("retry-after"), body: bytes, model: model, url: url)
    }

    /// The error for an answer with `status` and `body`.
    static func error(status: Int, retryAfter: String?, body: Data, model: String, url: URL) -> ModelError {
        let said = message(in: body)
        let detail = said.map { ": \($0)" } ?? ""
        let wait = retryAfter.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }.map { Duration.milliseconds(Int64($0 * 1000)) }
        switch status {
        case 401, 403:
            return ModelError(code: .unauthorized, message: "\(url.absoluteString) refused the API key\(detail)", httpStatus: status)
        case 404:
            return ModelError(
                code: .unknownModel,
                message: "\(url.absoluteString) has no model \"\(model)\", or is not an OpenAI-compatible API\(detail)", httpStatus: status)
        case 429:
            return ModelError(code: .rateLimited, message: "\(url.absoluteString) is rate limiting requests\(detail)", httpStatus: status, retryAfter: wait)
        case 500...599:
            return ModelError(code: .serverError, message: "\(url.absoluteString) failed\(detail)", httpStatus: status, retryAfter: wait)
        default:
            return ModelError(code: .badRequest, message: "\(url.absoluteString) refused the request\(detail)", httpStatus: status)
        }
    }

    /// The service's own words: `error.message`, `error` as text, `detail`, or the text itself.
    static func message(in body: Data) -> String? {
        guard !body.isEmpty else { return nil }
        if let json = try? JSONParser().parse(body), case .object(let object) = json {
            if let error = object["error"] {
                if let message = error["message"]?.stringValue { return message }
                if let text = error.stringValue { return text }
            }
            if let detail = object["detail"] {
                return detail.stringValue ?? JSONWriter.string(detail)
            }
            if let message = object["message"]?.stringValue { return message }
        }
        let text = String(decoding: body.prefix(500), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }
}
