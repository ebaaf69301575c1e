import Foundation

/// Writes the benchmark corpus: `message.new` events of about 2 KB, one per line, each with a
/// user, text, html, custom fields and three attachments (an image with a signed CDN link, a
/// file, and the seed's workout payload). Deterministic, so every run measures the same bytes.
enum CorpusWriter {
    static func write(count: Int, to url: URL) throws -> Int {
        var generator = SplitMix64(seed: 42)
        var output = Data()
        output.reserveCapacity(count * 2200)
        for index in 0..<count {
            output.append(contentsOf: event(index: index, random: &generator).utf8)
            output.append(0x0A)
        }
        try output.write(to: url)
        return output.count
    }

    static func event(index: Int, random: inout SplitMix64) -> String {
        let user = "user-\(random.next() % 500)"
        let messageId = "msg-\(index)-\(String(random.next(), radix: 16))"
        let channel = "team-\(random.next() % 40)"
        let created = "2026-11-\(String(format: "%02d", 1 + index % 28))T\(String(format: "%02d", index % 24)):14:49.394479Z"
        let expires = 1_790_000_000 + Int(random.next() % 1_000_000)
        let signature = String(repeating: String(random.next(), radix: 36), count: 3)
        let distance = 500 + random.next() % 20_000
        let duration = 300 + random.next() % 7_200
        let energy = 10_000 + random.next() % 900_000
        let words = ["ran", "along", "the", "river", "before", "work", "legs", "felt", "great", "today", "pace"]
        let text = (0..<24).map { _ in words[Int(random.next() % UInt64(words.count))] }.joined(separator: " ")
        return """
            {"type":"message.new","created_at":"\(created)","cid":"messaging:\(channel)","channel_type":"messaging",\
            "channel_id":"\(channel)","channel_member_count":12,"channel_message_count":\(index),\
            "channel_custom":{"name":"Team \(channel)","sport":"running"},"message_id":"\(messageId)",\
            "message":{"id":"\(messageId)","text":"\(text)","html":"<p>\(text)</p>\\n","type":"regular",\
            "user":{"id":"\(user)","name":"Runner \(user)","image":"https://example.com/avatars/\(user).png","role":"user",\
            "teams":[],"created_at":"2024-04-04T09:26:11.805899Z","updated_at":"2026-06-23T13:32:25.454217Z","banned":false,\
            "online":true,"last_active":"\(created)","blocked_user_ids":[],"club":"riverside","level":3},\
            "member":{"channel_role":"channel_member","notifications_muted":false},\
            "attachments":[{"type":"image","image_url":"https://frankfurt.stream-io-cdn.com/102399/images/\(messageId).photo.jpg?Key-Pair-Id=APKAIHG36VEWPDULE23Q&Expires=\(expires)&Signature=\(signature)",\
            "fallback":"photo.jpg","file_size":\(100_000 + random.next() % 4_000_000),"mime_type":"image/jpeg","original_width":4032,"original_height":3024},\
            {"type":"file","asset_url":"https://frankfurt.stream-io-cdn.com/102399/attachments/\(messageId).route.gpx?Key-Pair-Id=APKAIHG36VEWPDULE23Q&Expires=\(expires)&Signature=\(signature)",\
            "title":"route.gpx","file_size":\(2_000 + random.next() % 90_000),"mime_type":"application/gpx+xml"},\
            {"type":"workout","image_url":"https://example.com/workouts/\(messageId).png","workout-type":"run",\
            "workout-energy-cal":\(energy),"workout-distance-meters":\(distance),"workout-duration-seconds":\(duration)}],\
            "latest_reactions":[],"own_reactions":[],"reaction_counts":{},"reaction_scores":{},"reply_count":0,\
            "deleted_reply_count":0,"cid":"messaging:\(channel)","created_at":"\(created)","updated_at":"\(created)",\
            "shadowed":false,"mentioned_users":[],"mentioned_channel":false,"mentioned_here":false,"silent":false,\
            "pinned":false,"pinned_at":null,"pinned_by":null,"pin_expires":null,"restricted_visibility":[],\
            "workout_week":\(index % 52),"client_version":"ios-4.2.1"},\
            "user":{"id":"\(user)","name":"Runner \(user)","role":"user","created_at":"2024-04-04T09:26:11.805899Z",\
            "updated_at":"2026-06-23T13:32:25.454217Z","banned":false,"online":true},\
            "watcher_count":3,"unread_count":0,"total_unread_count":0,"unread_channels":0}
            """
    }
}

/// A small deterministic random generator, so the corpus is the same on every machine.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
