// ChatBotKitConfiguration's packages are resolved only under ChatBotKit's Configuration trait, so that a bot that does
// not use it never fetches them. Without the trait, say so before the missing imports do.
#if !Configuration
#error("ChatBotKitConfiguration needs ChatBotKit's Configuration trait: .package(url: \"…/ChatBotKit\", from: \"…\", traits: [\"Configuration\"])")
#endif
