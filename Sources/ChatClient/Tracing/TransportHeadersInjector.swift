import Foundation
import Tracing

/// Lets the tracer write its propagation headers (W3C `traceparent`, say) into a request's
/// header list, so the server's spans join the caller's trace.
struct TransportHeadersInjector: Injector {
    func inject(_ value: String, forKey key: String, into headers: inout [(name: String, value: String)]) {
        headers.removeAll { $0.name.caseInsensitiveCompare(key) == .orderedSame }
        headers.append((key, value))
    }
}
