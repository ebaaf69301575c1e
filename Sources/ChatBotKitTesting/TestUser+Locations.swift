import ChatClient
import ChatModels
import Foundation

extension TestUser {
    /// Shares a location in the user's channel, as a phone would: static, or live for `duration`.
    ///
    /// ```swift
    /// let run = try await ann.shareLocation(latitude: 52.52, longitude: 13.405, for: .seconds(1800), text: "ride")
    /// try await ann.moveLocation(of: run, toLatitude: 52.529, longitude: 13.405)
    /// try await ann.stopSharingLocation(of: run)
    /// ```
    @discardableResult
    public func shareLocation(latitude: Double, longitude: Double, for duration: Duration? = nil, text: String = "") async throws -> Message {
        let endAt = duration.map { Date().addingTimeInterval($0.timeInterval) }
        return try await client.channel(channel).shareLocation(latitude: latitude, longitude: longitude, until: endAt, text: text, deviceId: "test")
    }

    /// Moves the live location `message` shares.
    @discardableResult
    public func moveLocation(of message: Message, toLatitude latitude: Double, longitude: Double) async throws -> SharedLocation {
        try await client.updateLiveLocation(message.id, latitude: latitude, longitude: longitude)
    }

    /// Stops sharing the live location of `message`.
    @discardableResult
    public func stopSharingLocation(of message: Message) async throws -> SharedLocation {
        try await client.stopLiveLocation(message.id)
    }
}
