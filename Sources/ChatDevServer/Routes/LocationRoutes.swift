import ChatModels
import Foundation
import GRDB
import Hummingbird

/// Shared locations: a message sent with `shared_location` shows where its author is, once
/// (static) or live until `end_at`. While live, its sharer moves it (`PUT /users/live_locations`)
/// and each move reaches the channel as `message.updated` with the message, whose own
/// `updated_at` stays that of its last edit; setting `end_at` to now stops sharing.
struct LocationRoutes {
    let state: DevServerState

    func register(on router: Router<DevRequestContext>) {
        router.get("/users/live_locations") { request, _ in try await liveLocations(request) }
        router.put("/users/live_locations") { request, _ in try await updateLiveLocation(request) }
    }

    /// `GET /users/live_locations?user_id=` (a user token reads its own): the user's locations
    /// still live, with messages not deleted, as `active_live_locations`.
    func liveLocations(_ request: Request) async throws -> JSONReply {
        let operation = "GetUserLiveLocations"
        let principal = try await state.authenticate(request)
        let userId = try state.actingUser(principal, query: request, operation: operation)
        let now = state.clock.now()
        let renderer = await state.renderer(for: request)
        let locations = try await state.store.read { db in try SharedLocationsTable.live(of: userId, at: now, db) }
        return JSONReply(["active_live_locations": .array(locations.map { .object(renderer.sharedLocation($0)) })])
    }

    /// `PUT /users/live_locations?user_id=` with `message_id` and any of `latitude`,
    /// `longitude` and `end_at`: moves the sharer's live location (an `end_at` not after now
    /// stops it now, a later one changes when it ends); `message.updated` to the channel.
    func updateLiveLocation(_ request: Request) async throws -> JSONReply {
        let operation = "UpdateLiveLocation"
        let principal = try await state.authenticate(request)
        let body = try await state.jsonBody(request, operation: operation)
        let userId = try state.actingUser(principal, query: request, operation: operation)
        guard let messageId = body["message_id"]?.stringValue, !messageId.isEmpty else {
            throw APIError.input(operation, "message_id is a required field and must be a string")
        }
        let latitude = try Self.coordinate(body["latitude"], "latitude", range: -90...90, operation: operation)
        let longitude = try Self.coordinate(body["longitude"], "longitude", range: -180...180, operation: operation)
        let endAt = try Self.endAt(body["end_at"], operation: operation)
        guard latitude != nil || longitude != nil || endAt != nil else {
            throw APIError.input(operation, "nothing to update: give latitude, longitude or end_at")
        }
        let now = state.clock.now()
        let renderer = await state.renderer(for: request)
        let (location, event) = try await state.store.write { db -> (StoredSharedLocation, PendingEvent) in
            let message = try DevServerState.requireMessage(db, messageId, operation: operation)
            guard message.deletedAt == nil else { throw APIError.input(operation, "message \(messageId) is deleted") }
            guard var location = try SharedLocationsTable.fetch(db, messageId: messageId) else {
                throw APIError.input(operation, "message \(messageId) has no shared location")
            }
            guard location.userId == userId else {
                throw APIError.forbidden(operation, "user \(userId) may only update their own live locations")
            }
            guard let currentEnd = location.endAt else {
                throw APIError.input(operation, "the location of message \(messageId) is static; only a live location can be updated")
            }
            guard currentEnd > now else {
                throw APIError.input(operation, "live location sharing of message \(messageId) ended at \(RFC3339.string(from: currentEnd))")
            }
            location.latitude = latitude ?? location.latitude
            location.longitude = longitude ?? location.longitude
            if let endAt { location.endAt = max(endAt, now) }
            location.updatedAt = now
            try SharedLocationsTable.update(db, location)
            let (_, event) = try MessageRoutes.updated(message, viewer: nil, renderer: renderer, at: now, in: db)
            return (location, event)
        }
        await state.publish([event])
        return JSONReply(renderer.sharedLocation(location))
    }

    /// The `shared_location` of a message being sent, checked: `latitude` and `longitude` in
    /// range, `created_by_device_id` a string if given, `end_at` (live) after `now`; nil for none.
    static func sharedLocation(
        _ value: RawJSON?, messageId: String, cid: ChannelId, userId: String, now: Date, operation: String
    ) throws -> StoredSharedLocation? {
        guard let value, !value.isNull else { return nil }
        guard let object = value.objectValue else { throw APIError.input(operation, "message.shared_location must be an object") }
        guard let latitude = try coordinate(object["latitude"], "shared_location.latitude", range: -90...90, operation: operation),
            let longitude = try coordinate(object["longitude"], "shared_location.longitude", range: -180...180, operation: operation)
        else { throw APIError.input(operation, "message.shared_location needs latitude and longitude") }
        let device = object["created_by_device_id"]
        guard device == nil || device?.isNull == true || device?.stringValue != nil else {
            throw APIError.input(operation, "shared_location.created_by_device_id must be a string")
        }
        let endAt = try endAt(object["end_at"], field: "shared_location.end_at", operation: operation)
        if let endAt, endAt <= now {
            throw APIError.input(operation, "shared_location.end_at must be in the future for a live location (it is \(RFC3339.string(from: endAt)))")
        }
        return StoredSharedLocation(
            messageId: messageId, cid: cid, userId: userId, latitude: latitude, longitude: longitude, deviceId: device?.stringValue ?? "",
            endAt: endAt, createdAt: now, updatedAt: now)
    }

    /// A coordinate in degrees, nil when absent or null.
    private static func coordinate(_ value: RawJSON?, _ field: String, range: ClosedRange<Double>, operation: String) throws -> Double? {
        guard let value, !value.isNull else { return nil }
        guard let degrees = value.doubleValue, range.contains(degrees) else {
            throw APIError.input(
                operation, "\(field) must be a number of degrees from \(Int(range.lowerBound)) to \(Int(range.upperBound)), not \(value)")
        }
        return degrees
    }

    /// An `end_at` date, nil when absent or null.
    private static func endAt(_ value: RawJSON?, field: String = "end_at", operation: String) throws -> Date? {
        guard let value, !value.isNull else { return nil }
        guard let text = value.stringValue, let date = RFC3339.date(from: text) else {
            throw APIError.input(operation, "\(field) must be an RFC 3339 date such as \"2026-11-24T09:00:00Z\"")
        }
        return date
    }
}
