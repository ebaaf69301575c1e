/// Microseconds per input of `step`, the best of `rounds` passes over `inputs`: how the decode
/// and webhook benchmarks say where one item's time goes. `step` returns something derived from
/// its work, summed and checked, so the optimiser cannot drop the work.
func bestMicroseconds<Input>(_ inputs: [Input], rounds: Int, _ step: (Input) throws -> Int) rethrows -> Double {
    var best = Duration.seconds(1_000_000)
    var checksum = 0
    for _ in 0..<rounds {
        let clock = ContinuousClock()
        let start = clock.now
        for input in inputs { checksum &+= try step(input) }
        best = min(best, clock.now - start)
    }
    precondition(checksum != 0, "the steps must do work")
    return best.seconds / Double(inputs.count) * 1e6
}
