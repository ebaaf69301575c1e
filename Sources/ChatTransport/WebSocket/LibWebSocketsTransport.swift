import CLibWebSockets
import ChatLocking
import Foundation
import Logging
import Synchronization

/// WebSockets on libwebsockets: one service thread per transport serves every connection;
/// other threads hand it work and wake it with `lws_cancel_service`, the only lws call that
/// is safe from another thread. `wss://` is verified against the system CAs (or a CA file).
public final class LibWebSocketsTransport: WebSocketTransport {
    private let engine: LWSEngine

    /// A transport; `caFile` adds trusted certificates (PEM).
    public init(caFile: String? = nil, logger: Logger = Logger(label: "chatbotkit.transport.websocket")) {
        engine = LWSEngine(caFile: caFile, logger: logger)
    }

    deinit {
        engine.shutdown()
    }

    /// Connects and waits for the opening handshake.
    public func connect(_ request: WebSocketRequest) async throws -> any WebSocketConnection {
        guard let scheme = request.url.scheme, scheme == "ws" || scheme == "wss", request.url.host != nil else {
            throw TransportError(code: .invalidRequest, message: "\(request.url) is not a ws:// or wss:// URL")
        }
        let connection = LWSConnection(request: request, engine: engine)
        let timeout = Task {
            try await Task.sleep(for: request.connectTimeout)
            connection.connectTimedOut()
        }
        defer { timeout.cancel() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                connection.shared.withLock { $0.connectContinuation = continuation }
                engine.request(.connect(connection))
            }
        } onCancel: {
            connection.connectTimedOut(cancelled: true)
        }
        return connection
    }

    /// Closes every connection and stops the service thread; waits until it has.
    public func shutdown() {
        engine.shutdown()
    }
}

/// Work handed to the service thread.
enum LWSCommand {
    case connect(LWSConnection)
    case writable(LWSConnection)
    case resumeReading(LWSConnection)
    case abort(LWSConnection)
}

extension LWSConnection {
    /// Gives up on a handshake that takes too long (or whose task was cancelled).
    func connectTimedOut(cancelled: Bool = false) {
        let continuation = shared.withLock { shared -> CheckedContinuation<Void, any Error>? in
            defer { shared.connectContinuation = nil }
            return shared.connectContinuation
        }
        guard let continuation else { return }
        if cancelled {
            continuation.resume(throwing: CancellationError())
        } else {
            continuation.resume(
                throwing: TransportError(
                    code: .timedOut, message: "no WebSocket handshake with \(request.url.host ?? "") within \(request.connectTimeout)"))
        }
        engine.request(.abort(self))
    }
}

/// The service thread and the lws context it owns.
final class LWSEngine: @unchecked Sendable {
    private let commands = Locked<[LWSCommand]>([])
    /// The context, published for `lws_cancel_service` from other threads; nil once destroyed.
    private let context = Locked<ContextHandle?>(nil)
    private let stopping = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let ready = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)
    private let protocols: UnsafeMutablePointer<lws_protocols>
    private let protocolName = strdup("chatbotkit")
    private let caFile: UnsafeMutablePointer<CChar>?
    let logger: Logger
    /// Service thread only: connections with a live wsi (retained while lws knows them).
    private var live: [ObjectIdentifier: LWSConnection] = [:]

    init(caFile: String?, logger: Logger) {
        self.caFile = caFile.map { strdup($0) }
        self.logger = logger
        protocols = UnsafeMutablePointer<lws_protocols>.allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2)
        protocols[0].name = UnsafePointer(protocolName)
        protocols[0].callback = lwsCallback
        protocols[0].rx_buffer_size = 64 * 1024
    }

    deinit {
        protocols.deinitialize(count: 2)
        protocols.deallocate()
        free(protocolName)
        if let caFile { free(caFile) }
    }

    /// Queues work for the service thread and wakes it.
    func request(_ command: LWSCommand) {
        if !started.exchange(true, ordering: .acquiringAndReleasing) {
            let thread = Thread { [self] in run() }
            thread.name = "chatbotkit.lws"
            thread.start()
            ready.wait()
        }
        commands.withLock { $0.append(command) }
        context.withLock { context in
            if let context { lws_cancel_service(context.pointer) }
        }
        if stopping.load(ordering: .acquiring), case .connect(let connection) = command {
            connection.ended(code: 1001, reason: "the WebSocket transport was shut down")
        }
    }

    func shutdown() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        guard started.load(ordering: .acquiring) else { return }
        context.withLock { context in
            if let context { lws_cancel_service(context.pointer) }
        }
        stopped.wait()
    }

    private func run() {
        lws_set_log_level(Int32(LLL_ERR), nil)
        var info = lws_context_creation_info()
        info.port = CONTEXT_PORT_NO_LISTEN
        info.protocols = UnsafePointer(protocols)
        info.options = UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT)
        info.user = Unmanaged.passUnretained(self).toOpaque()
        if let caFile { info.client_ssl_ca_filepath = UnsafePointer(caFile) }
        let created = lws_create_context(&info)
        context.withLock { $0 = created.map(ContextHandle.init) }
        ready.signal()
        if let created {
            while !stopping.load(ordering: .acquiring) {
                lws_service(created, 0)
            }
            for connection in live.values { connection.shared.withLock { $0.closeRequest = (1001, "going away") } }
            context.withLock { $0 = nil }
            lws_context_destroy(created)
        } else {
            logger.error("libwebsockets could not create its context")
        }
        // Anything lws did not get to report is ended here.
        for connection in live.values { connection.ended(code: 1001, reason: "the WebSocket transport was shut down") }
        live.removeAll()
        for command in commands.withLock({ commands in defer { commands = [] }; return commands }) {
            if case .connect(let connection) = command {
                connection.ended(code: 1001, reason: "the WebSocket transport was shut down")
            }
        }
        stopped.signal()
    }

    // MARK: Service thread

    func performCommands(_ lwsContext: OpaquePointer) {
        let pending = commands.withLock { commands in
            defer { commands = [] }
            return commands
        }
        for command in pending {
            switch command {
            case .connect(let connection):
                open(connection, in: lwsContext)
            case .writable(let connection):
                if let wsi = connection.wsi { lws_callback_on_writable(wsi) }
            case .resumeReading(let connection):
                if let wsi = connection.wsi { lws_rx_flow_control(wsi, 1) }
            case .abort(let connection):
                if let wsi = connection.wsi {
                    connection.shared.withLock { $0.closeRequest = $0.closeRequest ?? (1000, "aborted") }
                    lws_callback_on_writable(wsi)
                } else {
                    connection.ended(code: 1006, reason: "connection abandoned")
                }
            }
        }
    }

    private func open(_ connection: LWSConnection, in lwsContext: OpaquePointer) {
        var info = lws_client_connect_info()
        info.context = lwsContext
        info.address = UnsafePointer(connection.address)
        info.port = connection.port
        info.path = UnsafePointer(connection.path)
        info.host = UnsafePointer(connection.hostHeader)
        info.origin = UnsafePointer(connection.origin)
        info.protocol = nil
        info.ssl_connection = connection.isSecure ? Int32(LCCSCF_USE_SSL.rawValue) : 0
        info.local_protocol_name = UnsafePointer(protocolName)
        info.opaque_user_data = Unmanaged.passUnretained(connection).toOpaque()
        live[ObjectIdentifier(connection)] = connection
        // No `pwsi`: lws would keep writing through that pointer for the life of the wsi, so it
        // would have to outlive this call. The wsi comes back in the callbacks instead.
        info.pwsi = nil
        if lws_client_connect_via_info(&info) == nil {
            live.removeValue(forKey: ObjectIdentifier(connection))
            connection.ended(code: 1006, reason: "cannot connect to \(connection.request.url.host ?? "")")
        }
    }

    func forget(_ connection: LWSConnection) {
        live.removeValue(forKey: ObjectIdentifier(connection))
    }
}

/// The protocol callback for every connection; the connection is found through the wsi's
/// opaque user data, the engine through the context's user pointer.
private func lwsCallback(
    wsi: OpaquePointer?, reason: lws_callback_reasons, user: UnsafeMutableRawPointer?, input: UnsafeMutableRawPointer?, length: Int
) -> Int32 {
    guard let wsi else { return 0 }
    if reason == LWS_CALLBACK_EVENT_WAIT_CANCELLED {
        guard let context = lws_get_context(wsi), let engineRaw = lws_context_user(context) else { return 0 }
        Unmanaged<LWSEngine>.fromOpaque(engineRaw).takeUnretainedValue().performCommands(context)
        return 0
    }
    guard let raw = lws_get_opaque_user_data(wsi) else { return 0 }
    let connection = Unmanaged<LWSConnection>.fromOpaque(raw).takeUnretainedValue()
    return connection.handle(wsi: wsi, reason: reason, input: input, length: length)
}

/// The lws context pointer, shared with other threads only so they can call
/// `lws_cancel_service`, which lws documents as safe from any thread. It is cleared (under the
/// same lock) before the context is destroyed.
struct ContextHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}
