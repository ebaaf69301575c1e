import Foundation

/// A peer written in Python that serves HTTP on a free loopback port (it prints `listening on
/// <port>` first), run beside ours in the same benchmark and stopped at the end.
final class PythonPeer: @unchecked Sendable {
    private let process = Process()
    /// The port it serves on.
    let port: Int

    init(python: String, script: String, arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let found = text.split(separator: " ").last.flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }) else {
            process.terminate()
            throw BenchmarkError("the peer \(script) did not say its port: \(text)")
        }
        port = found
    }

    /// Stops it and waits until it has.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        // A peer that does not exit on SIGTERM must not hold the benchmark's end.
        let deadline = ContinuousClock.now + .seconds(3)
        while process.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
