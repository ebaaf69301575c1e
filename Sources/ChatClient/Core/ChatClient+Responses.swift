import ChatModels

extension ChatClient {
    /// The model under `key` of an answer; `.invalidResponse` naming the call when it is
    /// missing or cannot be read.
    static func model<Model: JSONModel>(_: Model.Type, at key: String, in response: JSONObject, operation: String) throws -> Model {
        guard let json = response[key] else {
            throw ChatClientError(code: .invalidResponse, message: "\(operation) answered without a \(key)")
        }
        do {
            return try Model(json: json)
        } catch {
            throw ChatClientError(code: .invalidResponse, message: "\(operation) answered a \(key) that cannot be read: \(error)")
        }
    }

    /// The models of the array under `key` (none when it is absent), each called `noun` in errors.
    static func models<Model: JSONModel>(
        _: Model.Type, at key: String, noun: String, in response: JSONObject, operation: String
    ) throws -> [Model] {
        do {
            return try (response[key]?.arrayValue ?? []).map { try Model(json: $0) }
        } catch {
            throw ChatClientError(code: .invalidResponse, message: "\(operation) answered a \(noun) that cannot be read: \(error)")
        }
    }
}
