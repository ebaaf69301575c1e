"""The peers of the decode benchmark: orjson.loads and json.loads over the same corpus file,
untyped (they build dicts; no classification). Prints events/s and MB/s, best of N rounds."""

import json
import sys

import orjson

from rounds import best_rate


def measure(name, loads, lines, size, rounds):
    events = best_rate(lines, loads, rounds)
    print(f"{name}: {events:,.0f} events/s, {size * events / len(lines) / 1e6:.1f} MB/s (best of {rounds} rounds)")
    return events


def main():
    path = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    with open(path, "rb") as corpus:
        data = corpus.read()
    lines = [line for line in data.split(b"\n") if line]
    size = sum(len(line) + 1 for line in lines)
    orjson_rate = measure(f"orjson {orjson.__version__} loads", orjson.loads, lines, size, rounds)
    json_rate = measure("json loads", json.loads, lines, size, rounds)
    print(f"RESULT decode orjson_events_per_s={orjson_rate:.0f} json_events_per_s={json_rate:.0f}")
    if len(sys.argv) > 3 and sys.argv[3]:
        swift_rate = float(sys.argv[3])
        print(f"ChatModels typed decode+classify vs orjson: {swift_rate / orjson_rate:.2f}x (target 1.10x), "
              f"vs json: {swift_rate / json_rate:.2f}x")


if __name__ == "__main__":
    main()
