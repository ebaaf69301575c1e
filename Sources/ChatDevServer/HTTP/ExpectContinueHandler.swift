import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers `Expect: 100-continue` at once, which Hummingbird does not do on its own: `curl -F`
/// and libcurl otherwise wait a second before sending a large upload body.
final class ExpectContinueHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(var head) = unwrapInboundIn(data), head.headerFields[.expect]?.lowercased() == "100-continue" {
            head.headerFields[.expect] = nil
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
            context.fireChannelRead(wrapInboundOut(.head(head)))
            return
        }
        context.fireChannelRead(data)
    }
}

/// Tells the WebSocket endpoint about every ping frame a client sends, so it can answer with a
/// `health.check` (Stream's Swift SDK waits for one after each ping). Frames pass through unchanged.
final class PingObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame

    private let onPing: @Sendable () -> Void

    init(onPing: @escaping @Sendable () -> Void) {
        self.onPing = onPing
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if unwrapInboundIn(data).opcode == .ping { onPing() }
        context.fireChannelRead(data)
    }
}

import NIOWebSocket
