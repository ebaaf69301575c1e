import Foundation
import PostgresNIO

/// A PostgreSQL connection string, as libpq reads it: `postgres://user:password@host:5432/db`,
/// with `?sslmode=` (`disable`, `prefer`, the default, `require`, `verify-full`) and, for a
/// local server, `?host=/run/postgresql` (a folder holding its Unix socket).
public struct PostgresConnectionString: Sendable, CustomStringConvertible {
    /// The client configuration it describes.
    public let configuration: PostgresClient.Configuration
    /// The string with its password masked, for logs.
    public let description: String

    /// Reads `text`; throws ``LeaseStoreError`` with `.badConnectionString` saying what is wrong.
    public init(_ text: String) throws(LeaseStoreError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme)
        else {
            throw LeaseStoreError(
                code: .badConnectionString, message: "\(Self.masked(text)) is not a PostgreSQL URL; write postgres://user:password@host:5432/database")
        }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        let user = components.user?.removingPercentEncoding ?? query["user"] ?? ProcessInfo.processInfo.userName
        let password = components.password?.removingPercentEncoding ?? query["password"]
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        let database = path.isEmpty ? query["dbname"] : path.removingPercentEncoding
        let port = components.port ?? query["port"].flatMap(Int.init) ?? 5432
        let host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? query["host"] ?? "localhost"

        var configuration: PostgresClient.Configuration
        if host.hasPrefix("/") {
            configuration = PostgresClient.Configuration(
                unixSocketPath: "\(host)/.s.PGSQL.\(port)", username: user, password: password, database: database)
        } else {
            let tls: PostgresClient.Configuration.TLS
            switch query["sslmode"] ?? "prefer" {
            case "disable": tls = .disable
            case "prefer", "allow": tls = .prefer(.makeClientConfiguration())
            case "require":
                // As libpq: encrypted, without checking the certificate.
                var tlsConfiguration = TLSConfiguration.makeClientConfiguration()
                tlsConfiguration.certificateVerification = .none
                tls = .require(tlsConfiguration)
            case "verify-ca", "verify-full": tls = .require(.makeClientConfiguration())
            case let mode:
                throw LeaseStoreError(
                    code: .badConnectionString,
                    message: "sslmode \(mode) in \(Self.masked(text)) is not one of disable, prefer, require, verify-ca, verify-full")
            }
            configuration = PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
        }
        configuration.options.connectTimeout = .seconds(5)
        self.configuration = configuration
        description = Self.masked(text)
    }

    /// `text` with the password replaced by `***`.
    static func masked(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "***"
        return components.string ?? text
    }
}
