import ChatLocking
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real OpenAI-compatible model server on loopback, for testing AI bots:
/// llama-cpp-python's server (`llama-cpp-python[server]` from PyPI) on a port of its own,
/// serving a tiny llama model with random weights that it writes first (with the `gguf`
/// package; `Resources/tiny_model.py`). It streams real `chat.completion.chunk`s and makes
/// grammar-forced tool calls (`--chat_format chatml-function-calling`); its words are nonsense,
/// so test the protocol and the properties, not the prose.
///
/// ```swift
/// let server = try await TestModelServer.start()
/// defer { server.stop() }
/// let model = OpenAICompatibleModel(url: server.url, model: server.model)
/// ```
/// The Python comes from `$CHATBOTKIT_PYTHON`, else the nearest `.venv/bin/python` above the
/// working folder (what `make python-env` makes), else `python3`.
public final class TestModelServer: Sendable {
    /// The API's base URL (`http://127.0.0.1:PORT/v1`).
    public let url: URL
    /// The model's name.
    public let model = "tiny"
    /// The API key it demands, if one was given.
    public let apiKey: String?
    /// The server's output so far (for a failing test's message).
    public var log: String { output.withLock { String(decoding: $0, as: UTF8.self) } }
    private let process: Process
    private let output: Locked<Data>
    private let folder: URL

    /// Why the server could not be started.
    public struct StartError: Error, CustomStringConvertible {
        /// What went wrong, and what to do.
        public let description: String
    }

    private init(url: URL, apiKey: String?, process: Process, output: Locked<Data>, folder: URL) {
        self.url = url
        self.apiKey = apiKey
        self.process = process
        self.output = output
        self.folder = folder
    }

    /// Writes the model and starts the server on a free port; with `apiKey`, requests without
    /// that bearer key are refused (401).
    public static func start(apiKey: String? = nil, contextLength: Int = 4096, timeout: Duration = .seconds(120)) async throws -> TestModelServer {
        let python = pythonPath()
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("chatbotkit-model-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let modelFile = folder.appendingPathComponent("tiny.gguf")
        try await writeModel(to: modelFile, python: python)
        var arguments = [
            "-m", "llama_cpp.server", "--model", modelFile.path, "--model_alias", "tiny", "--host", "127.0.0.1", "--port", "0",
            "--chat_format", "chatml-function-calling", "--n_ctx", String(contextLength), "--n_threads", "1", "--verbose", "false",
            // By default a new request cuts off the one being streamed; tests share the server.
            "--interrupt_requests", "false",
        ]
        if let apiKey { arguments += ["--api_key", apiKey] }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let output = Locked(Data())
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            // Bounded: the start-up lines and the last of the rest.
            output.withLock { log in
                log.append(data)
                if log.count > 1 << 20 { log.removeFirst(log.count - (1 << 19)) }
            }
        }
        do {
            try process.run()
        } catch {
            throw StartError(description: "cannot start \(python) -m llama_cpp.server: \(error); run `make python-env`")
        }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let text = output.withLock { String(decoding: $0, as: UTF8.self) }
            if let port = listeningPort(in: text) {
                return TestModelServer(
                    url: URL(string: "http://127.0.0.1:\(port)/v1")!, apiKey: apiKey, process: process, output: output, folder: folder)
            }
            guard process.isRunning else {
                throw StartError(description: "llama_cpp.server stopped at start (is llama-cpp-python[server] installed? run `make python-env`):\n\(text.suffix(2000))")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        process.terminate()
        throw StartError(description: "llama_cpp.server did not listen within \(timeout)")
    }

    /// Stops the server (killed after 3 s) and removes its folder.
    public func stop() {
        if process.isRunning {
            process.terminate()
            // uvicorn lets open responses finish before it exits, and a test that stops the
            // server mid-stream, or a client that keeps its connection alive, would hold it forever.
            let deadline = ContinuousClock.now + .seconds(3)
            while process.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
            if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// Kills the server at once (SIGKILL): a model service that dies mid-answer.
    public func kill() {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Whether it still runs.
    public var isRunning: Bool { process.isRunning }

    /// `Uvicorn running on http://127.0.0.1:PORT`, which uvicorn prints with the port it bound.
    static func listeningPort(in text: String) -> Int? {
        guard let range = text.range(of: "running on http://127.0.0.1:") else { return nil }
        let digits = text[range.upperBound...].prefix { $0.isNumber }
        return Int(digits)
    }

    /// The Python that has llama-cpp-python.
    public static func pythonPath() -> String {
        if let python = ProcessInfo.processInfo.environment["CHATBOTKIT_PYTHON"], !python.isEmpty { return python }
        var folder = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        for _ in 0..<6 {
            let candidate = folder.appendingPathComponent(".venv/bin/python").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            folder.deleteLastPathComponent()
        }
        return "/usr/bin/python3"
    }

    /// Writes the tiny model with `Resources/tiny_model.py`.
    public static func writeModel(to file: URL, python: String = pythonPath(), seed: Int = 7) async throws {
        guard let script = Bundle.module.url(forResource: "tiny_model", withExtension: "py") else {
            throw StartError(description: "ChatBotKitTesting's tiny_model.py is missing from its resources")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script.path, file.path, String(seed)]
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw StartError(
                description: "writing the tiny model failed (is gguf installed? run `make python-env`): \(String(decoding: output.suffix(2000), as: UTF8.self))")
        }
    }
}
