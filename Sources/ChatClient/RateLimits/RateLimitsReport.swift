import ChatModels

/// What `GET /rate_limits` says: each endpoint's quota in the current window, per platform.
/// Platforms not asked for are empty.
public struct RateLimitsReport: Sendable, Hashable {
    /// A platform the service keeps quotas for.
    public enum Platform: String, Sendable, CaseIterable {
        /// Calls made with the app secret (bots, back ends).
        case serverSide = "server_side"
        /// Android apps.
        case android
        /// iOS apps.
        case ios
        /// Web apps.
        case web
    }

    /// Server-side quotas: the ones a bot with the app secret spends.
    public var serverSide: [EndpointName: RateLimitQuota] = [:]
    /// Android apps' quotas.
    public var android: [EndpointName: RateLimitQuota] = [:]
    /// iOS apps' quotas.
    public var ios: [EndpointName: RateLimitQuota] = [:]
    /// Web apps' quotas.
    public var web: [EndpointName: RateLimitQuota] = [:]

    /// The quotas of `platform`.
    public subscript(platform: Platform) -> [EndpointName: RateLimitQuota] {
        switch platform {
        case .serverSide: serverSide
        case .android: android
        case .ios: ios
        case .web: web
        }
    }

    /// A report from the answer's object; entries that are not quotas are left out.
    init(json: JSONObject) {
        func quotas(_ platform: Platform) -> [EndpointName: RateLimitQuota] {
            var quotas: [EndpointName: RateLimitQuota] = [:]
            for (name, value) in json[platform.rawValue]?.objectValue ?? [:] {
                if let quota = RateLimitQuota(json: value) { quotas[EndpointName(rawValue: name)] = quota }
            }
            return quotas
        }
        serverSide = quotas(.serverSide)
        android = quotas(.android)
        ios = quotas(.ios)
        web = quotas(.web)
    }
}
