// ChatBotKitTesting's packages are resolved only under ChatBotKit's Tools trait, so that a bot that does
// not use it never fetches them. Without the trait, say so before the missing imports do.
#if !Tools
#error("ChatBotKitTesting needs ChatBotKit's Tools trait: .package(url: \"…/ChatBotKit\", from: \"…\", traits: [\"Tools\"])")
#endif
