import Foundation

// `ChatBenchmarks <decode|decode-serve|upload|events|bot|metrics|reuse|checkpoint|probe|scaleout|tracing|webhook|commands|beforesend> [arguments]`; run by Benchmarks/run.sh (release build).
let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "decode": try DecodeBenchmark.run(Array(arguments.dropFirst()))
    case "decode-serve": try DecodeBenchmark.serve(Array(arguments.dropFirst()))
    case "upload": try await UploadBenchmark.run(Array(arguments.dropFirst()))
    case "events": try await EventsBenchmark.run(Array(arguments.dropFirst()))
    case "bot": try await BotBenchmark.run(Array(arguments.dropFirst()))
    case "metrics": try await MetricsBenchmark.run(Array(arguments.dropFirst()))
    case "reuse": try await ReuseBenchmark.run(Array(arguments.dropFirst()))
    case "checkpoint": try await CheckpointBenchmark.run(Array(arguments.dropFirst()))
    case "probe": try ProbeBenchmark.run(Array(arguments.dropFirst()))
    case "scaleout": try await ScaleOutBenchmark.run(Array(arguments.dropFirst()))
    case "tracing": try await TracingBenchmark.run(Array(arguments.dropFirst()))
    case "webhook": try await WebhookBenchmark.run(Array(arguments.dropFirst()))
    case "commands": try await CommandsBenchmark.run(Array(arguments.dropFirst()))
    case "beforesend": try await BeforeSendBenchmark.run(Array(arguments.dropFirst()))
    default: throw BenchmarkError("usage: ChatBenchmarks <decode|decode-serve|upload|events|bot|metrics|reuse|checkpoint|probe|scaleout|tracing|webhook|commands|beforesend> [arguments]")
    }
} catch {
    FileHandle.standardError.write(Data("ChatBenchmarks: \(error)\n".utf8))
    exit(1)
}
