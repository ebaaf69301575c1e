"""ChatModels' typed decode + classify against orjson.loads (and json.loads) in paired chunks.

This VM's speed changes by tens of percent within seconds and sometimes halves for a while, so
a figure of ours and a figure of the peer's only compare when they are taken close together.
Here the two sides take turns on the same chunk of the corpus: `ChatBenchmarks decode-serve`
times its chunk while this process waits, then this process times orjson (and json) on the
same events while it waits, about a tenth of a second apart. Each pair gives a ratio; the
median of the pairs is the figure the target is judged by, and the quartiles say how much the
pairs spread. Who goes first alternates, so a drift during a pair does not favour one side.

Both sides run on one CPU, the same one: this process pins itself before it starts
`decode-serve`, which inherits the pinning. On this VM one virtual CPU at times runs at about
two thirds of its usual speed, and unpinned the two processes were often on different ones,
so a pair could time one side on a slow CPU and the other on a fast one (medians of
1.07-1.45x in nine runs on one machine; pinned, 1.43-1.50x in nine, with quartiles within 0.1x
of the median).

A second estimate, which the VM's slow spells cannot drag down: each side's fastest chunk, as
the classic best-of-N takes it (noise only ever adds time), and the ratio of the two. Over
enough pairs both sides meet the VM's fast phase, so this compares them at full speed.

Usage: paired_decode.py <ChatBenchmarks binary> <corpus path> [pairs] [events per chunk]
"""

import json
import os
import platform
import statistics
import subprocess
import sys
import time

import orjson

TARGET = 1.10


def peer_seconds(loads, lines, first, count):
    """Seconds `loads` takes over `count` lines from `first` on (wrapping), as one list."""
    chunk = [lines[(first + offset) % len(lines)] for offset in range(count)]
    start = time.perf_counter_ns()
    for line in chunk:
        loads(line)
    return (time.perf_counter_ns() - start) / 1e9


class SwiftSide:
    """The `decode-serve` process: one request line out, one timing line back."""

    def __init__(self, binary, corpus):
        self.process = subprocess.Popen([binary, "decode-serve", corpus], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        ready = self.process.stdout.readline().split()
        if len(ready) != 2 or ready[0] != "ready":
            self.close()
            raise SystemExit(f"ChatBenchmarks decode-serve did not start: {ready!r}")
        self.events = int(ready[1])

    def seconds(self, first, count):
        self.process.stdin.write(f"{first} {count}\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline().split()
        if len(answer) != 3:
            raise SystemExit(f"ChatBenchmarks decode-serve answered {answer!r} to {first} {count}")
        nanoseconds, workouts, failures = (int(field) for field in answer)
        if workouts != count or failures != 0:
            raise SystemExit(f"ChatBenchmarks typed {workouts} of {count} workouts ({failures} failures)")
        return nanoseconds / 1e9

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=30)


def pin_to_one_cpu():
    """Pins this process, and so the `decode-serve` it starts, to the first CPU it may use;
    that CPU's number, or None where the system cannot pin."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    cpu = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    return cpu


def machine():
    """The CPU the figures were taken on, as /proc/cpuinfo names it: the ratio depends on it.

    The same build ran at parity with orjson on the VM of earlier weeks and at 1.4-1.5x on a
    later one; a hypervisor often names every CPU "Intel(R) Xeon(R) Processor", so the family,
    model and stepping are what tell two machines apart."""
    try:
        with open("/proc/cpuinfo") as file:
            first_cpu = file.read().split("\n\n")[0]
    except OSError:
        return platform.processor() or platform.machine()
    field = {key.strip(): value.strip() for key, value in (line.split(":", 1) for line in first_cpu.splitlines() if ":" in line)}
    cores = os.cpu_count()
    threads = "" if field.get("siblings") in (None, field.get("cpu cores")) else f", {field['siblings']} threads on {field['cpu cores']} cores"
    return (f"{field.get('model name', '?')} (family {field.get('cpu family', '?')} model {field.get('model', '?')} "
            f"stepping {field.get('stepping', '?')}), {cores} CPUs{threads}")


def quartiles(values):
    ordered = sorted(values)
    cut = statistics.quantiles(ordered, n=4)
    return cut[0], statistics.median(ordered), cut[2]


def main():
    binary, corpus = sys.argv[1], sys.argv[2]
    pairs = int(sys.argv[3]) if len(sys.argv) > 3 else 41
    count = int(sys.argv[4]) if len(sys.argv) > 4 else 5000
    cpu = pin_to_one_cpu()
    with open(corpus, "rb") as file:
        lines = [line for line in file.read().split(b"\n") if line]
    swift = SwiftSide(binary, corpus)
    try:
        if swift.events != len(lines):
            raise SystemExit(f"ChatBenchmarks read {swift.events} events from {corpus}, this script {len(lines)}")
        # Warm both sides (caches, the allocator, the thread's index buffers) on the whole corpus.
        swift.seconds(0, len(lines))
        peer_seconds(orjson.loads, lines, 0, len(lines))
        swift_rates, orjson_rates, json_rates, ratios, json_ratios = [], [], [], [], []
        for pair in range(pairs):
            first = pair * count % len(lines)
            if pair % 2 == 0:
                ours = swift.seconds(first, count)
                theirs = peer_seconds(orjson.loads, lines, first, count)
            else:
                theirs = peer_seconds(orjson.loads, lines, first, count)
                ours = swift.seconds(first, count)
            standard = peer_seconds(json.loads, lines, first, count)
            swift_rates.append(count / ours)
            orjson_rates.append(count / theirs)
            json_rates.append(count / standard)
            ratios.append(theirs / ours)
            json_ratios.append(standard / ours)
    finally:
        swift.close()
    low, median, high = quartiles(ratios)
    fastest_swift, fastest_orjson = max(swift_rates), max(orjson_rates)
    peak_ratio = fastest_swift / fastest_orjson
    reached = sum(ratio >= TARGET for ratio in ratios)
    print(f"on {machine()}; both sides on " + (f"CPU {cpu}" if cpu is not None else "whichever CPU the system picks"))
    print(f"{pairs} pairs of {count} events, each side timed on the same chunk about a tenth of a second apart")
    print(f"events/s, median of pairs: ChatModels {statistics.median(swift_rates):,.0f}, orjson {statistics.median(orjson_rates):,.0f}, "
          f"json {statistics.median(json_rates):,.0f}")
    print(f"ChatModels typed decode+classify vs orjson.loads: median {median:.3f}x (quartiles {low:.3f}x-{high:.3f}x, "
          f"{reached} of {pairs} pairs at {TARGET:.2f}x or more; target {TARGET:.2f}x), vs json.loads: median {statistics.median(json_ratios):.2f}x")
    print(f"fastest chunk of each side: ChatModels {fastest_swift:,.0f} events/s, orjson {fastest_orjson:,.0f}: {peak_ratio:.3f}x")
    print(f"RESULT decode_paired median_ratio={median:.3f} low_quartile={low:.3f} high_quartile={high:.3f} "
          f"json_ratio={statistics.median(json_ratios):.3f} swift_events_per_s={statistics.median(swift_rates):.0f} "
          f"orjson_events_per_s={statistics.median(orjson_rates):.0f} peak_ratio={peak_ratio:.3f}")


if __name__ == "__main__":
    main()
