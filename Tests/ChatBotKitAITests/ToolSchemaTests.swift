import ChatBotKit
import Foundation
import Testing

@testable import ChatBotKitAI

@Suite struct ToolSchemaTests {
    enum Sport: String, SchemaEnumeration { case run, ride, swim }

    struct Arguments: Decodable, Sendable {
        var sport: Sport
        var distanceKm: Double
        var days: Int?
        var tags: [String]
        var window: Window?

        struct Window: Decodable, Sendable {
            var from: Date
            var to: Date
        }
    }

    struct Logger: Tool {
        typealias Arguments = ToolSchemaTests.Arguments
        static let name = "log"
        static let description = "Logs a workout."
        static let parameters: JSONSchema? = .object([
            JSONSchema.Property("sport", .string("which sport", allowedValues: ["run", "ride", "swim"])),
            JSONSchema.Property("distanceKm", .number("kilometres")),
            JSONSchema.Property("days", .integer(), required: false),
            JSONSchema.Property("tags", .array(of: .string())),
            JSONSchema.Property(
                "window",
                .object([JSONSchema.Property("from", JSONSchema(.string, format: "date-time")), JSONSchema.Property("to", JSONSchema(.string, format: "date-time"))]),
                required: false),
        ])

        func call(_ arguments: Arguments, context: ToolContext) async throws -> ToolOutput { ToolOutput("logged \(arguments.sport.rawValue)") }
    }

    @Test func theDerivedSchemaIsTheTypes() throws {
        let derived = try JSONSchema.derived(from: Arguments.self)
        #expect(derived.properties.map(\.name) == ["sport", "distanceKm", "days", "tags", "window"])
        #expect(derived.properties.map(\.isRequired) == [true, true, false, true, false])
        #expect(derived.properties[0].schema.allowedValues == ["run", "ride", "swim"])
        #expect(derived.properties[3].schema.items.first?.kind == .string)
        #expect(derived.json["required"] == ["sport", "distanceKm", "tags"])
    }

    @Test func theDeclaredSchemaAgreesWithTheType() throws {
        #expect(try ToolBox.schemaDifferences(of: Logger.self) == [])
    }

    @Test func aDeclaredSchemaThatDriftsIsCaught() throws {
        var drifted = try #require(Logger.parameters)
        drifted.properties[2].isRequired = true
        drifted.properties.removeLast()
        #expect(drifted.differences(from: try JSONSchema.derived(from: Arguments.self)) == ["arguments.days: required here, optional there", "arguments.window: only there"])
    }

    @Test func badArgumentsGoBackToTheModelWithTheFieldPath() async throws {
        let tool = try AnyTool(Logger())
        let context = ToolContext(bot: nil)
        let wrongType = await tool.call(arguments: #"{"sport":"run","distanceKm":"five","tags":[]}"#, context: context)
        #expect(wrongType.isError && wrongType.content.contains("arguments.distanceKm"))
        let missing = await tool.call(arguments: #"{"sport":"run","tags":[]}"#, context: context)
        #expect(missing.isError && missing.content.contains("arguments.distanceKm") && missing.content.contains("required field is missing"))
        let notAnEnum = await tool.call(arguments: #"{"sport":"walk","distanceKm":1,"tags":[]}"#, context: context)
        #expect(notAnEnum.isError && notAnEnum.content.contains("arguments.sport"))
        let cutOff = await tool.call(arguments: #"{"sport":"run","dista"#, context: context)
        #expect(cutOff.isError && cutOff.content.contains("arguments"))
        let good = await tool.call(arguments: #"{"sport":"ride","distanceKm":12.5,"tags":["hills"]}"#, context: context)
        #expect(!good.isError && good.content == "logged ride")
    }
}
