import ChatBotKit
import ChatBotKitConfiguration
import Testing

@Suite("bots.yaml outage_tolerance")
struct OutageToleranceConfigurationTests {
    static func yaml(_ tolerance: String?) -> String {
        "server:\n  api_key: k\n  api_secret: s-0123456789abcdef\nbots:\n  - name: a\n    kind: echo\n    channels: [messaging:x]\n"
            + (tolerance.map { "    outage_tolerance: \($0)\n" } ?? "")
    }

    @Test("10 minutes unless given; a duration such as 30s or 2h")
    func durations() throws {
        #expect(try BotsConfiguration.parse(Self.yaml(nil)).bots[0].outageTolerance == .seconds(600))
        #expect(try BotsConfiguration.parse(Self.yaml("30s")).bots[0].outageTolerance == .seconds(30))
        #expect(try BotsConfiguration.parse(Self.yaml("2h")).bots[0].outageTolerance == .seconds(7200))
    }

    @Test(
        "forever, a negative value or an unknown unit is refused at its line and column",
        arguments: [
            ("forever", "bots[0].outage_tolerance must be a duration such as 10m or 1h, found \"forever\": a message held for ever"),
            ("-5m", "bots[0].outage_tolerance must be a duration such as 30s, 10m or 14d, found \"-5m\""),
            ("10 weeks", "bots[0].outage_tolerance must be a duration such as 30s, 10m or 14d, found \"10 weeks\""),
        ])
    func refused(value: String, message: String) throws {
        let error = #expect(throws: ConfigurationError.self) { try BotsConfiguration.parse(Self.yaml(value)) }
        #expect(error?.code == .badValue)
        #expect((error?.line, error?.column) == (8, 23), "\(String(describing: error))")
        #expect(error?.message.hasPrefix(message) == true, "\(String(describing: error))")
    }

    @Test("a changed outage_tolerance restarts the bot")
    func changeRestarts() throws {
        let old = try BotsConfiguration.parse(Self.yaml("10m"))
        let new = try BotsConfiguration.parse(Self.yaml("1m"))
        #expect(new.changes(from: old).restarted.map(\.name) == ["a"])
    }
}
