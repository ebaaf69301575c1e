import ChatModels
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

extension Response {
    /// A JSON response with the compact bytes of `json`.
    static func json(_ json: RawJSON, status: HTTPResponse.Status = .ok) -> Response {
        let data = JSONWriter.data(json)
        return Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8", .contentLength: String(data.count)],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// A JSON object under construction for a response; handlers return it and the envelope
/// middleware adds `duration`.
struct JSONReply: ResponseGenerator {
    var object: JSONObject
    var status: HTTPResponse.Status

    init(_ object: JSONObject = [:], status: HTTPResponse.Status = .ok) {
        self.object = object
        self.status = status
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var object = object
        object["duration"] = .string((context as? DevRequestContext)?.durationText ?? "0.00ms")
        return .json(.object(object), status: status)
    }
}
