import ChatClient
import Foundation

/// Tells a `bots chat` session when its connection drops and when it is back, so that a quiet
/// spell is not taken for one without answers. Looked at every `interval`: a drop shorter
/// than that is told by its reconnection alone.
struct ChatConnectionNotices: Sendable {
    let connection: EventConnection
    var interval: Duration = .milliseconds(200)
    /// Where a notice goes (the session's output).
    let say: @Sendable (String) -> Void

    static let lost = "(connection lost; reconnecting…)"
    static let reconnected = "(reconnected; what was said meanwhile follows)"

    /// Tells until cancelled.
    func run() async {
        var connections = connection.connectionCount
        var toldLost = false
        while (try? await Task.sleep(for: interval)) != nil {
            let count = connection.connectionCount
            if count > connections {
                say(Self.reconnected)
                toldLost = false
            } else if connection.state == .connecting, !toldLost {
                say(Self.lost)
                toldLost = true
            }
            connections = count
        }
    }
}
