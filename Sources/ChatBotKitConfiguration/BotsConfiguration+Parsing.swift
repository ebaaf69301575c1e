import ChatBotKit
import ChatClient
import ChatModels
import Foundation

/// Reading the three kinds of section: `server`, `embedded` and each entry of `bots`.
extension BotsConfiguration {
    static func parseServer(_ node: ConfigNode?, root: ConfigNode) throws(ConfigurationError) -> Server {
        guard let node else { throw root.error(.missingKey, "bots.yaml needs a server: section with api_key and api_secret") }
        try node.allowOnly(["url", "api_key", "api_secret"])
        var url: URL?
        if let urlNode = node["url"] {
            let text = try urlNode.string()
            guard let parsed = Server.httpURL(text) else {
                throw urlNode.error(.badValue, "server.url must be an http(s) URL such as https://chat.stream-io-api.com, found \"\(text)\"")
            }
            url = parsed
        }
        let apiKey = try node.required("api_key").string()
        let secretNode = try node.required("api_secret")
        let secret = try secretNode.string()
        guard !apiKey.isEmpty else { throw try node.required("api_key").error(.badValue, "server.api_key is empty") }
        guard secret.count >= 16 else {
            throw secretNode.error(.badValue, "server.api_secret is too short (\(secret.count) characters); use at least 16")
        }
        return Server(url: url, apiKey: apiKey, apiSecret: Secret(secret))
    }

    static func parseEmbedded(_ node: ConfigNode?) throws(ConfigurationError) -> Embedded {
        var embedded = Embedded()
        guard let node else { return embedded }
        try node.allowOnly([
            "host", "port", "data", "link_lifetime", "health_check_interval", "dev_tokens", "url_enrichment", "uploads", "rate_limits",
            "playground_renderers",
        ])
        if let host = node["host"] { embedded.host = try host.string() }
        if let port = node["port"] {
            embedded.port = try port.int()
            guard (0...65535).contains(embedded.port) else { throw port.error(.badValue, "embedded.port must be 0...65535") }
        }
        if let data = node["data"] { embedded.dataDirectory = try data.string() }
        if let lifetime = node["link_lifetime"] { embedded.linkLifetime = try lifetime.duration() }
        if let interval = node["health_check_interval"] { embedded.healthCheckInterval = try interval.duration() }
        if let dev = node["dev_tokens"] { embedded.acceptsDevTokens = try dev.bool() }
        if let renderers = node["playground_renderers"] { embedded.playgroundRenderers = try renderers.string() }
        if let enrichment = node["url_enrichment"] { embedded.enrichesURLs = try enrichment.bool() }
        if let uploads = node["uploads"] {
            try uploads.allowOnly([
                "size_limit", "blocked_file_extensions", "allowed_file_extensions", "blocked_mime_types", "allowed_mime_types",
            ])
            if let size = uploads["size_limit"] {
                // The hosted service takes nothing larger, so a dev server allowing more would
                // pass uploads that fail in production.
                let limit = try size.byteSize()
                guard (1...100 * 1024 * 1024).contains(limit) else {
                    throw size.error(.badValue, "\(size.path) must be more than 0 and at most 100MB, the hosted service's limit, found \(size.describe)")
                }
                embedded.uploadSizeLimit = limit
            }
            for key in ["blocked_file_extensions", "allowed_file_extensions"] {
                guard let list = uploads[key] else { continue }
                let extensions = try list.strings()
                if let bad = extensions.first(where: { !$0.hasPrefix(".") }) {
                    throw list.error(.badValue, "extensions in embedded.uploads.\(key) start with a dot: write \".\(bad)\"")
                }
                if key.hasPrefix("blocked") { embedded.blockedFileExtensions = extensions } else { embedded.allowedFileExtensions = extensions }
            }
            if let list = uploads["blocked_mime_types"] { embedded.blockedMimeTypes = try list.strings() }
            if let list = uploads["allowed_mime_types"] { embedded.allowedMimeTypes = try list.strings() }
        }
        if let limits = node["rate_limits"] {
            // Unknown names are refused with a suggestion: a misspelt endpoint would otherwise
            // keep the default limit without a word.
            try limits.allowOnly(["default"] + EndpointName.known.map(\.rawValue))
            for (key, value) in try limits.mapping() {
                let limit = try value.int()
                guard limit > 0 else { throw value.error(.badValue, "\(value.path) must be at least 1 request a minute, found \(limit)") }
                if key == "default" { embedded.defaultRateLimit = limit } else { embedded.rateLimits[EndpointName(rawValue: key)] = limit }
            }
        }
        return embedded
    }

    static func parseBot(_ node: ConfigNode) throws(ConfigurationError) -> BotEntry {
        _ = try node.mapping()
        let nameNode = try node.required("name")
        let name = try nameNode.string()
        guard !name.isEmpty, ChannelId.isValidPart(name) else {
            throw nameNode.error(.badValue, "bot name \"\(name)\" may only use letters, digits, '-' and '_'")
        }
        let kind = try node.required("kind").string()
        let user = try node["user"]?.userId() ?? name
        var channels: [ChannelId] = []
        let channelsNode = try node.required("channels")
        for element in try channelsNode.sequence() {
            let text = try element.string()
            do {
                channels.append(try ChannelId(cid: text))
            } catch {
                throw element.error(.badValue, "\"\(text)\" is not a channel id; write type:id, for example messaging:general")
            }
        }
        guard !channels.isEmpty else { throw channelsNode.error(.badValue, "bot \(name) needs at least one channel") }
        var concurrency = 8
        if let value = node["concurrency"] {
            concurrency = try value.int()
            guard (1...256).contains(concurrency) else { throw value.error(.badValue, "concurrency must be 1...256") }
        }
        let drainDeadline = try node["drain_deadline"]?.duration() ?? .seconds(10)
        var entry = BotEntry(
            name: name, kind: kind, user: user, channels: channels, concurrency: concurrency, drainDeadline: drainDeadline, node: node)
        if let reuse = node["reuse_uploads"] { entry.reusesUploads = try reuse.bool() }
        if let catchUp = node["catch_up"] {
            if case .scalar(let text, _) = catchUp.value, ["off", "false", "no"].contains(text.lowercased()) {
                entry.catchUp = nil
            } else {
                guard case .scalar(let text, _) = catchUp.value, let duration = DurationText.parse(text) else {
                    throw catchUp.error(.badValue, "\(catchUp.path) must be a duration such as 30m or 1d, or off, found \(catchUp.describe)")
                }
                entry.catchUp = duration
            }
        }
        if let budget = node["rate_budget"] { entry.rateBudget = try parseRateBudget(budget) }
        if let limit = node["sender_limit"] { entry.senderLimit = try parseSenderLimit(limit) }
        if let tolerance = node["outage_tolerance"] { entry.outageTolerance = try parseOutageTolerance(tolerance) }
        return entry
    }
}
