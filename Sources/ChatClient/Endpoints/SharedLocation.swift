import ChatModels
import Foundation

/// Where a message's author is (`shared_location`): shared once (static), or live until
/// ``endAt``, moved by its sharer meanwhile (each move reaches the channel as
/// `message.updated`).
public struct SharedLocation: Sendable, Hashable {
    /// The message that shares it.
    public var messageId: String
    /// The message's channel.
    public var cid: ChannelId?
    /// Who shares it.
    public var userId: String?
    /// Degrees north (negative: south).
    public var latitude: Double
    /// Degrees east (negative: west).
    public var longitude: Double
    /// The device it is shared from, as its sharer named it.
    public var deviceId: String?
    /// When a live location stops being shared; nil for a static one.
    public var endAt: Date?
    /// When it was shared.
    public var createdAt: Date?
    /// When it last moved (or was shared, if it never moved).
    public var updatedAt: Date?

    /// Whether it is a live location (whether or not it is still shared).
    public var isLive: Bool { endAt != nil }

    /// Whether it is a live location still shared at `date`.
    public func isShared(at date: Date) -> Bool { endAt.map { $0 > date } ?? false }

    /// The great-circle distance to another location in meters (haversine, on a sphere of the
    /// Earth's mean radius: within 0.5% of the ellipsoid's distance).
    public func meters(to other: SharedLocation) -> Double {
        Self.meters(fromLatitude: latitude, longitude: longitude, toLatitude: other.latitude, longitude: other.longitude)
    }

    /// The great-circle distance between two points given in degrees, in meters.
    public static func meters(fromLatitude lat1: Double, longitude lon1: Double, toLatitude lat2: Double, longitude lon2: Double) -> Double {
        let radians = Double.pi / 180
        let dLat = (lat2 - lat1) * radians
        let dLon = (lon2 - lon1) * radians
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * radians) * cos(lat2 * radians) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * 6_371_008.8 * asin(min(1, a.squareRoot()))
    }

    /// A location as messages and the live-location endpoints carry it; `operation` names the
    /// call in errors.
    public init(json: RawJSON, operation: String) throws {
        guard let object = json.objectValue, let latitude = object["latitude"]?.doubleValue, let longitude = object["longitude"]?.doubleValue
        else {
            throw ChatClientError(code: .invalidResponse, message: "\(operation) answered a shared location without latitude and longitude")
        }
        messageId = object["message_id"]?.stringValue ?? ""
        cid = object["channel_cid"]?.stringValue.flatMap { try? ChannelId(cid: $0) }
        userId = object["user_id"]?.stringValue
        self.latitude = latitude
        self.longitude = longitude
        deviceId = object["created_by_device_id"]?.stringValue
        endAt = object["end_at"]?.stringValue.flatMap(RFC3339.date(from:))
        createdAt = object["created_at"]?.stringValue.flatMap(RFC3339.date(from:))
        updatedAt = object["updated_at"]?.stringValue.flatMap(RFC3339.date(from:))
    }
}

/// A location to send with a message (``OutgoingMessage/sharedLocation``): static, or live
/// until `endAt`.
public struct LocationShare: Sendable, Hashable {
    /// Degrees north, -90 to 90.
    public var latitude: Double
    /// Degrees east, -180 to 180.
    public var longitude: Double
    /// When a live location stops being shared; nil shares it once.
    public var endAt: Date?
    /// The device it is shared from.
    public var deviceId: String

    /// A location; with `endAt` a live one.
    public init(latitude: Double, longitude: Double, endAt: Date? = nil, deviceId: String = "chatbotkit") {
        self.latitude = latitude
        self.longitude = longitude
        self.endAt = endAt
        self.deviceId = deviceId
    }

    var json: RawJSON {
        var object: JSONObject = [
            "latitude": .number(JSONNumber(latitude)), "longitude": .number(JSONNumber(longitude)), "created_by_device_id": .string(deviceId),
        ]
        if let endAt { object["end_at"] = .string(RFC3339.string(from: endAt)) }
        return .object(object)
    }
}

extension Message {
    /// The location the message shares, as it stands (nil when it shares none).
    public var sharedLocation: SharedLocation? {
        serverFields["shared_location"].flatMap { $0.isNull ? nil : try? SharedLocation(json: $0, operation: "message.shared_location") }
    }

    /// The live location of a `message.updated` when the update is its move (or its stop)
    /// rather than an edit of the message; nil otherwise (and for a location never moved). A
    /// move gives the location an `updated_at` later than the message's creation and at least
    /// as late as the message's own (the dev server leaves the message's as it was); an edit
    /// makes the message's the later one.
    public var movedLocation: SharedLocation? {
        guard let location = sharedLocation, location.isLive, let movedAt = location.updatedAt,
            movedAt > (createdAt ?? .distantPast), movedAt >= (updatedAt ?? .distantPast)
        else { return nil }
        return location
    }
}

extension SharedLocation {
    /// Whether its sharer stopped it: it ended when it last changed, or before.
    public var isStopped: Bool {
        guard let endAt, let updatedAt else { return false }
        return endAt <= updatedAt
    }
}
