// The waits, scratch folders and recorders every test uses come with the kit: a bot's tests
// import ChatBotKitTesting alone. They live in ChatTestSupport so that this package's tests of
// the model, the transport and the dev server can use them without building a dev server and bots.
@_exported import ChatTestSupport
