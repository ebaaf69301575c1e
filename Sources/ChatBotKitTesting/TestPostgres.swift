import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real PostgreSQL server of the test's own (Debian's `postgresql` package), in a temporary
/// folder, reached through a Unix socket in it (no TCP port): for testing bots scaled out over
/// several nodes (`BotService.ScaleOut`) against the store they use for real.
///
/// Run as root, the server runs as the `postgres` user, as PostgreSQL refuses root.
public final class TestPostgres: Sendable {
    /// The server's folder: its data, its socket and its log.
    public let folder: URL
    /// The connection string for the `postgres` database, as `PostgresConnectionString` reads it.
    public let connectionString: String
    private let process: Process

    /// Why a server could not be started.
    public struct StartError: Error, CustomStringConvertible {
        /// What went wrong, and what to do.
        public let description: String
    }

    private init(folder: URL, process: Process) {
        self.folder = folder
        self.process = process
        connectionString = "postgres:///postgres?host=\(folder.path)&user=postgres"
    }

    /// Starts a server in a fresh folder and waits until it takes connections.
    public static func start() async throws -> TestPostgres {
        let binaries = try binaryFolder()
        // Short: a Unix socket's path is limited to 107 bytes.
        let folder = URL(fileURLWithPath: "/tmp/chatbotkit-pg-\(UUID().uuidString.prefix(8).lowercased())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let runAs = getuid() == 0 ? "postgres" : nil
        if let runAs { try handOver(folder, to: runAs) }
        let data = folder.appendingPathComponent("data").path
        let log = folder.appendingPathComponent("server.log")
        do {
            try await runToEnd(
                binaries.appendingPathComponent("initdb"),
                ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"], as: runAs, log: log)
            let server = try launch(
                binaries.appendingPathComponent("postgres"),
                [
                    "-D", data, "-k", folder.path, "-c", "listen_addresses=", "-c", "fsync=off", "-c", "synchronous_commit=off",
                    "-c", "full_page_writes=off", "-c", "shared_buffers=16MB",
                ], as: runAs, log: log)
            let postgres = TestPostgres(folder: folder, process: server)
            do {
                try await postgres.waitUntilReady(binaries.appendingPathComponent("pg_isready"))
            } catch {
                await postgres.stop()
                throw error
            }
            return postgres
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    /// Runs `body` with a server of its own, and stops it afterwards.
    public static func with<T: Sendable>(_ body: (TestPostgres) async throws -> T) async throws -> T {
        let postgres = try await start()
        do {
            let result = try await body(postgres)
            await postgres.stop()
            return result
        } catch {
            await postgres.stop()
            throw error
        }
    }

    /// Stops the server (a fast shutdown; killed after 10 s) and removes its folder.
    public func stop() async {
        if process.isRunning {
            kill(process.processIdentifier, SIGINT)
            let deadline = ContinuousClock.now + .seconds(10)
            while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// The server's log so far (what it said when something went wrong).
    public var log: String {
        (try? String(contentsOf: folder.appendingPathComponent("server.log"), encoding: .utf8)) ?? ""
    }

    private func waitUntilReady(_ isReady: URL) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            guard process.isRunning else { throw StartError(description: "PostgreSQL stopped while starting:\n\(log)") }
            let probe = Process()
            probe.executableURL = isReady
            probe.arguments = ["-q", "-h", folder.path, "-U", "postgres", "-d", "postgres"]
            try probe.run()
            probe.waitUntilExit()
            if probe.terminationStatus == 0 { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw StartError(description: "PostgreSQL did not take connections within 30 s:\n\(log)")
    }

    /// The newest installed server's programs (`/usr/lib/postgresql/<version>/bin`).
    private static func binaryFolder() throws -> URL {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).compactMap(Int.init).sorted()
        for version in versions.reversed() {
            let folder = root.appendingPathComponent("\(version)/bin")
            if FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent("initdb").path) { return folder }
        }
        throw StartError(description: "no PostgreSQL server is installed; install it with: apt-get install postgresql")
    }

    /// Gives `folder` to `user`, for a server run as that user.
    private static func handOver(_ folder: URL, to user: String) throws {
        guard let account = getpwnam(user) else {
            throw StartError(description: "PostgreSQL cannot run as root, and there is no \(user) user to run it as; install it with: apt-get install postgresql")
        }
        guard chown(folder.path, account.pointee.pw_uid, account.pointee.pw_gid) == 0 else {
            throw StartError(description: "cannot give \(folder.path) to \(user): \(String(cString: strerror(errno)))")
        }
    }

    /// Starts `program`, as `user` when given (through `setpriv`, which execs it, so that the
    /// process is the server itself and signals reach it), with its output appended to `log`.
    private static func launch(_ program: URL, _ arguments: [String], as user: String?, log: URL) throws -> Process {
        let process = Process()
        if let user {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=\(user)", "--regid=\(user)", "--init-groups", "--", program.path] + arguments
        } else {
            process.executableURL = program
            process.arguments = arguments
        }
        if !FileManager.default.fileExists(atPath: log.path) { _ = FileManager.default.createFile(atPath: log.path, contents: nil) }
        let output = try FileHandle(forWritingTo: log)
        output.seekToEndOfFile()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    private static func runToEnd(_ program: URL, _ arguments: [String], as user: String?, log: URL) async throws {
        let process = try launch(program, arguments, as: user, log: log)
        while process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        guard process.terminationStatus == 0 else {
            let said = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw StartError(description: "\(program.lastPathComponent) failed with status \(process.terminationStatus):\n\(said)")
        }
    }
}
