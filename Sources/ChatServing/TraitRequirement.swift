// ChatServing's packages are resolved only under ChatBotKit's Webhooks trait, so that a bot that does
// not use it never fetches them. Without the trait, say so before the missing imports do.
#if !Webhooks
#error("ChatServing needs ChatBotKit's Webhooks trait: .package(url: \"…/ChatBotKit\", from: \"…\", traits: [\"Webhooks\"])")
#endif
