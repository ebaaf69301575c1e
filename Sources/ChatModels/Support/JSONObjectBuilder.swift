import Foundation

/// Builds the JSON object of a model: known fields in a fixed order (absent values left out),
/// then custom fields sorted by key, never overwriting a known field.
struct JSONObjectBuilder {
    var object = JSONObject(reservingCapacity: 16)

    mutating func set(_ key: String, _ value: String?) { if let value { object[key] = .string(value) } }
    mutating func set(_ key: String, _ value: Bool?) { if let value { object[key] = .bool(value) } }
    mutating func set(_ key: String, _ value: Int?) { if let value { object[key] = .number(JSONNumber(value)) } }
    mutating func set(_ key: String, _ value: Double?) { if let value { object[key] = .number(JSONNumber(value)) } }
    mutating func set(_ key: String, _ value: Date?) { if let value { object[key] = .string(RFC3339.string(from: value)) } }
    mutating func set(_ key: String, _ value: URL?) { if let value { object[key] = .string(value.absoluteString) } }
    mutating func set(_ key: String, _ value: RawJSON?) { if let value { object[key] = value } }
    mutating func set<M: JSONModel>(_ key: String, _ value: M?) { if let value { object[key] = value.json } }
    mutating func set<M: JSONModel>(_ key: String, _ values: [M]) { object[key] = .array(values.map(\.json)) }
    mutating func set(_ key: String, _ map: [String: Int]) {
        object[key] = .object(JSONObject(map.mapValues { RawJSON.number(JSONNumber($0)) }))
    }

    mutating func merge(_ extraData: [String: RawJSON]) {
        for key in extraData.keys.sorted() where !object.contains(key) {
            object[key] = extraData[key]
        }
    }

    var json: RawJSON { .object(object) }
}
