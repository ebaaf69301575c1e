import Foundation
import NIOCore

/// Why a server could not listen, said so that the user knows what to change.
public enum ListenFailure {
    /// The reason for `error` (thrown by binding `host`), with what to do about it; `settings`
    /// names where the port is chosen (`"metrics.port in bots.yaml"`).
    public static func describe(_ error: any Error, host: String, settings: String) -> String {
        guard let reason = error as? IOError else { return "\(error)" }
        let hint: String
        switch reason.errnoCode {
        case EADDRINUSE:
            hint = "the port is already in use, perhaps by another `bots run` or `bots serve`; stop that process or choose another port"
                + " (\(settings), 0 for any free port)"
        case EACCES:
            hint = "ports below 1024 need root; choose a port of 1024 or more"
        case EADDRNOTAVAIL:
            hint = "\(host) is not an address of this machine; use 127.0.0.1 or another local address"
        default:
            hint = String(cString: strerror(reason.errnoCode))
        }
        return "\(hint) (errno \(reason.errnoCode))"
    }
}
