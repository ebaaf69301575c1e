import ChatBotKitConfiguration
import ChatBotKit
import ChatModels
import Foundation
import Testing

@Suite("bots.yaml changes while running")
struct ConfigurationChangesTests {
    static let before = """
        server: {api_key: key, api_secret: a-secret-of-at-least-32-bytes-long}
        embedded: {port: 8787}
        bots:
          - name: coach
            kind: workout
            channels: [messaging:general, messaging:gym]
            database: coach.sqlite
          - name: guard
            kind: moderation
            channels: [messaging:general]
            policy: {max_file_size: 25MB, sniff_content: true}
          - name: keeper
            kind: archive
            user: keeper-bot
            channels: [messaging:general]
          - name: old
            kind: archive
            channels: [messaging:attic]
        """

    @Test("the same file, or one written another way (flow or block style, comments, key order of the common keys), changes nothing")
    func sameMeaningIsNoChange() throws {
        let configuration = try BotsConfiguration.parse(Self.before)
        #expect(try BotsConfiguration.parse(Self.before).changes(from: configuration).isEmpty)
        let rewritten = """
            # the same bots, written out
            server:
              api_key: key
              api_secret: a-secret-of-at-least-32-bytes-long
            embedded:
              port: 8787
            bots:
              - kind: workout
                name: coach
                channels:
                  - messaging:general
                  - messaging:gym
                database: coach.sqlite   # same file
              - {name: guard, kind: moderation, channels: [messaging:general], policy: {max_file_size: 25MB, sniff_content: true}}
              - {name: keeper, kind: archive, user: keeper-bot, channels: [messaging:general]}
              - {name: old, kind: archive, channels: [messaging:attic]}
            """
        #expect(try BotsConfiguration.parse(rewritten).changes(from: configuration).isEmpty)
    }

    @Test("each bot lands where its change takes it: started, stopped, restarted, reconfigured in place, new channels followed; server sections wait for a restart")
    func sorted() throws {
        let after = """
            server: {api_key: key, api_secret: a-secret-of-at-least-32-bytes-long}
            embedded: {port: 9999}
            bots:
              - name: coach
                kind: workout
                channels: [messaging:general, messaging:track]
                database: coach.sqlite
              - name: guard
                kind: moderation
                channels: [messaging:general]
                policy: {max_file_size: 1MB, sniff_content: true}
              - name: keeper
                kind: archive
                user: keeper-bot-2
                channels: [messaging:general]
              - name: newcomer
                kind: archive
                channels: [messaging:general]
            """
        let changes = try BotsConfiguration.parse(after).changes(from: BotsConfiguration.parse(Self.before))
        #expect(changes.added.map(\.name) == ["newcomer"])
        #expect(changes.removed.map(\.name) == ["old"])
        #expect(changes.restarted.map(\.name) == ["keeper"], "a new user is a new connection")
        #expect(changes.reconfigured.map(\.name) == ["guard"], "only the policy, which its kind reads, changed")
        #expect(changes.followed.map(\.bot.name) == ["coach"])
        #expect(changes.followed.first?.channels == ["messaging:track"])
        #expect(changes.left.first?.channels == ["messaging:gym"])
        #expect(changes.needingRestart == ["embedded"])
        #expect(!changes.isEmpty)
    }

    @Test("concurrency, drain_deadline, reuse_uploads and catch_up take a restart; server and metrics changes are named, not applied")
    func restartsAndSections() throws {
        let base = try BotsConfiguration.parse(Self.before)
        let busier = Self.before.replacingOccurrences(of: "database: coach.sqlite", with: "database: coach.sqlite\n    concurrency: 2")
        #expect(try BotsConfiguration.parse(busier).changes(from: base).restarted.map(\.name) == ["coach"])
        let patient = Self.before.replacingOccurrences(of: "user: keeper-bot", with: "user: keeper-bot\n    drain_deadline: 1m")
        #expect(try BotsConfiguration.parse(patient).changes(from: base).restarted.map(\.name) == ["keeper"])
        let thrifty = Self.before.replacingOccurrences(of: "user: keeper-bot", with: "user: keeper-bot\n    reuse_uploads: true")
        let reusing = try BotsConfiguration.parse(thrifty)
        #expect(reusing.bots.map(\.reusesUploads) == [false, false, true, false])
        #expect(reusing.changes(from: base).restarted.map(\.name) == ["keeper"])
        #expect(reusing.changes(from: base).reconfigured.isEmpty, "not one of the kind's own options")
        let forgetful = Self.before.replacingOccurrences(of: "user: keeper-bot", with: "user: keeper-bot\n    catch_up: off")
        #expect(try BotsConfiguration.parse(forgetful).changes(from: base).restarted.map(\.name) == ["keeper"])
        let hooked = Self.before.replacingOccurrences(of: "bots:", with: "webhook: {port: 8789}\nbots:")
        #expect(try BotsConfiguration.parse(hooked).changes(from: base).needingRestart == ["webhook"])
        let byWebhook = hooked.replacingOccurrences(of: "user: keeper-bot", with: "user: keeper-bot\n    events: webhook")
        #expect(try BotsConfiguration.parse(byWebhook).changes(from: BotsConfiguration.parse(hooked)).restarted.map(\.name) == ["keeper"])
        let moved = Self.before.replacingOccurrences(of: "api_key: key", with: "api_key: other") + "\nmetrics: {port: 0}\n"
        let changes = try BotsConfiguration.parse(moved).changes(from: base)
        #expect(changes.needingRestart == ["server", "metrics"])
        #expect(changes.added.isEmpty && changes.removed.isEmpty && changes.restarted.isEmpty && changes.reconfigured.isEmpty)
    }
}
