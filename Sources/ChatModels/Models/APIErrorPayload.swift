@_spi(JSONEngine) import ChatJSON
import Foundation

/// The error body every Stream endpoint answers with, and the `error` of `connection.error`:
/// `{code, message, StatusCode, duration, more_info, details}`.
public struct APIErrorPayload: JSONModel, ReaderDecodable, Hashable, Codable, CustomStringConvertible {
    /// The Stream error code (4 input error, 16 not found, 40 token expired, ...).
    public var code: Int
    /// The message.
    public var message: String
    /// The HTTP status the error mirrors.
    public var statusCode: Int
    /// Processing time, as the server reports it.
    public var duration: String
    /// A link to the error documentation.
    public var moreInfo: String
    /// Extra numeric details.
    public var details: [Int]
    /// Whether the server says a retry cannot help.
    public var unrecoverable: Bool?
    /// Fields that were wrong, with the reason.
    public var exceptionFields: [String: String]

    /// An error body.
    public init(
        code: Int, message: String, statusCode: Int, duration: String = "0.00ms",
        moreInfo: String = "https://getstream.io/chat/docs/api_errors_response", details: [Int] = [],
        unrecoverable: Bool? = nil, exceptionFields: [String: String] = [:]
    ) {
        self.code = code
        self.message = message
        self.statusCode = statusCode
        self.duration = duration
        self.moreInfo = moreInfo
        self.details = details
        self.unrecoverable = unrecoverable
        self.exceptionFields = exceptionFields
    }

    /// Reads an error body from JSON bytes; tolerant of missing fields, since edge proxies may send less.
    public init(jsonData: Data) throws(JSONError) {
        let object = try JSONParser().parse(jsonData)
        guard case .object(let members) = object else {
            throw JSONError.typeMismatch(expected: "an object", found: object.kindDescription)
        }
        self.init(code: -1, message: "", statusCode: 0, duration: "", moreInfo: "")
        for (key, value) in members {
            switch key {
            case "code": code = value.intValue ?? -1
            case "message": message = value.stringValue ?? ""
            case "StatusCode": statusCode = value.intValue ?? 0
            case "duration": duration = value.stringValue ?? ""
            case "more_info": moreInfo = value.stringValue ?? ""
            case "details": details = value.arrayValue?.compactMap(\.intValue) ?? []
            case "unrecoverable": unrecoverable = value.boolValue
            case "exception_fields":
                for (field, reason) in value.objectValue ?? [:] { exceptionFields[field] = reason.stringValue ?? reason.description }
            default: break
            }
        }
    }

    package init(reader: JSONReader, node: Int) throws(JSONError) {
        try self.init(jsonData: Data(reader.slice(try reader.readObject(node))))
    }

    /// The error body as JSON.
    public var json: RawJSON {
        var builder = JSONObjectBuilder()
        builder.set("code", code)
        builder.set("message", message)
        builder.set("StatusCode", statusCode)
        builder.set("duration", duration)
        builder.set("more_info", moreInfo)
        builder.set("details", RawJSON.array(details.map { .number(JSONNumber($0)) }))
        builder.set("unrecoverable", unrecoverable)
        if !exceptionFields.isEmpty {
            builder.set("exception_fields", RawJSON.object(JSONObject(exceptionFields.mapValues { RawJSON.string($0) })))
        }
        return builder.json
    }

    /// `code <n> (HTTP <status>): <message>`.
    public var description: String { "code \(code) (HTTP \(statusCode)): \(message)" }

    /// Decodes through any decoder.
    public init(from decoder: any Decoder) throws { self = try .decoded(from: decoder) }
    /// Encodes the JSON form.
    public func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }
}
