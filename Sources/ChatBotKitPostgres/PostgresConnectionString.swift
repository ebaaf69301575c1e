import ChatBotKitConfiguration
import ChatBotKit
import Foundation
import PostgresNIO

/// A PostgreSQL connection string, as libpq reads it: `postgres://user:password@host:5432/db`,
/// with `?sslmode=` (`disable`, `prefer`, the default, `require`, `verify-full`) and, for a
/// local server, `?host=/run/postgresql` (a folder holding its Unix socket).
public struct PostgresConnectionString: Sendable, CustomStringConvertible {
    /// The client configuration it describes.
    public let configuration: PostgresClient.Configuration
    /// The same, for one connection of its own (what the store tries when the pool does not
    /// answer, to say why); nil when its TLS context cannot be made.
    let probeConfiguration: PostgresConnection.Configuration?
    /// The string with its password masked, for logs.
    public let description: String

    /// Reads `text`; throws ``LeaseStoreError`` with `.badConnectionString` saying what is wrong.
    public init(_ text: String) throws(LeaseStoreError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme)
        else {
            throw LeaseStoreError(
                code: .badConnectionString, message: "\(Secret.maskingPassword(in: text)) is not a PostgreSQL URL; write postgres://user:password@host:5432/database")
        }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        let user = components.user?.removingPercentEncoding ?? query["user"] ?? ProcessInfo.processInfo.userName
        let password = components.password?.removingPercentEncoding ?? query["password"]
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        let database = path.isEmpty ? query["dbname"] : path.removingPercentEncoding
        let port = components.port ?? query["port"].flatMap(Int.init) ?? 5432
        let host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? query["host"] ?? "localhost"

        var configuration: PostgresClient.Configuration
        var probe: PostgresConnection.Configuration?
        if host.hasPrefix("/") {
            configuration = PostgresClient.Configuration(
                unixSocketPath: "\(host)/.s.PGSQL.\(port)", username: user, password: password, database: database)
            probe = PostgresConnection.Configuration(
                unixSocketPath: "\(host)/.s.PGSQL.\(port)", username: user, password: password, database: database)
        } else {
            let tls: PostgresClient.Configuration.TLS
            let probeTLSConfiguration: TLSConfiguration?
            let mode = query["sslmode"] ?? "prefer"
            switch mode {
            case "disable":
                tls = .disable
                probeTLSConfiguration = nil
            case "prefer", "allow":
                tls = .prefer(.makeClientConfiguration())
                probeTLSConfiguration = .makeClientConfiguration()
            case "require":
                // As libpq: encrypted, without checking the certificate.
                var tlsConfiguration = TLSConfiguration.makeClientConfiguration()
                tlsConfiguration.certificateVerification = .none
                tls = .require(tlsConfiguration)
                probeTLSConfiguration = tlsConfiguration
            case "verify-ca", "verify-full":
                tls = .require(.makeClientConfiguration())
                probeTLSConfiguration = .makeClientConfiguration()
            case let mode:
                throw LeaseStoreError(
                    code: .badConnectionString,
                    message: "sslmode \(mode) in \(Secret.maskingPassword(in: text)) is not one of disable, prefer, require, verify-ca, verify-full")
            }
            configuration = PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
            let probeTLS: PostgresConnection.Configuration.TLS? =
                switch probeTLSConfiguration {
                case nil: .disable
                case .some(let tlsConfiguration):
                    (try? NIOSSLContext(configuration: tlsConfiguration)).map { mode == "prefer" || mode == "allow" ? .prefer($0) : .require($0) }
                }
            probe = probeTLS.map {
                PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: $0)
            }
        }
        configuration.options.connectTimeout = .seconds(5)
        self.configuration = configuration
        probe?.options.connectTimeout = .seconds(2)
        probeConfiguration = probe
        description = Secret.maskingPassword(in: text)
    }
}
