import ChatModels
import Foundation

extension Renderer {
    /// A shared location as messages and the live-location endpoints carry it (`end_at` only
    /// for a live one).
    func sharedLocation(_ location: StoredSharedLocation) -> JSONObject {
        var object: JSONObject = [
            "channel_cid": .string(location.cid.rawValue), "message_id": .string(location.messageId), "user_id": .string(location.userId),
            "latitude": .number(JSONNumber(location.latitude)), "longitude": .number(JSONNumber(location.longitude)),
            "created_by_device_id": .string(location.deviceId),
            "created_at": .string(RFC3339.string(from: location.createdAt)), "updated_at": .string(RFC3339.string(from: location.updatedAt)),
        ]
        if let endAt = location.endAt { object["end_at"] = .string(RFC3339.string(from: endAt)) }
        return object
    }
}
