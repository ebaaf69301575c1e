import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLRequest {
    /// A POST of `json` signed as the service signs what it sends an app's own server
    /// (webhooks, custom command handlers, the Before Message Send hook): `X-Api-Key`, and
    /// `X-Signature` the hex HMAC-SHA256 of the body with the app secret. Callers add their own
    /// headers (a webhook's id and attempt, gzip).
    static func signedPost(to url: URL, json: Data, apiKey: String, signature: String, timeout: Duration) -> URLRequest {
        var request = URLRequest(url: url, timeoutInterval: timeout.seconds)
        request.httpMethod = "POST"
        request.httpBody = json
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(apiKey, forHTTPHeaderField: "X-Api-Key")
        request.setValue(signature, forHTTPHeaderField: "X-Signature")
        return request
    }
}
