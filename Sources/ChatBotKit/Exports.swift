// A bot's handlers speak in the wire model's types (`AttachmentPayload`, `Message`,
// `AttachmentType`) and reach the service through the client's (`ChatClient`, `OutgoingMessage`),
// so `import ChatBotKit` alone is enough to write one, as the README's first bot does.
@_exported import ChatClient
@_exported import ChatModels
