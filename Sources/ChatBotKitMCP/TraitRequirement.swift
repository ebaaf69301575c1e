// The MCP SDK (and the SwiftNIO its package pulls into resolution) is resolved only under
// ChatBotKit's MCP trait, which Tools enables. Without it, say so before the missing import does.
#if !MCP
#error("ChatBotKitMCP needs ChatBotKit's MCP trait: .package(url: \"…/ChatBotKit\", from: \"…\", traits: [\"MCP\"])")
#endif
