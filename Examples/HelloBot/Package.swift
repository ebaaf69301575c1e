// swift-tools-version:6.1
import PackageDescription

// The README's ten-line bot as a package of its own, as a user would write it: it depends on the
// ChatBotKit product alone, and so builds without SwiftNIO, Hummingbird, CompressNIO or Yams
// (ChatBotKitTests' HelloBotPackageTests reads its dependency graph to hold that).
let package = Package(
    name: "HelloBot",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "ChatBotKit", path: "../..")
    ],
    targets: [
        .executableTarget(name: "HelloBot", dependencies: [.product(name: "ChatBotKit", package: "ChatBotKit")])
    ]
)
