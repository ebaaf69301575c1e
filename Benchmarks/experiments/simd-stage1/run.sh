#!/usr/bin/env bash
# Measures the simdjson-style stage 1 in Stage1.swift against ChatModels' whole index on the
# same 1,000 corpus events: instructions per event (callgrind, the difference between two run
# lengths, so one-time costs cancel) and time per event. Needs valgrind for the instructions.
# Usage: Benchmarks/experiments/simd-stage1/run.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
out=Benchmarks/.out/simd-stage1
mkdir -p "$out"
swift build -c release --traits Tools --product ChatBenchmarks >&2
bin=$(swift build -c release --traits Tools --show-bin-path)
# The decode benchmark writes its corpus (the same generator as Benchmarks/run.sh decode).
"$bin/ChatBenchmarks" decode "$out/corpus.ndjson" 10000 1 | grep -v RESULT
head -1000 "$out/corpus.ndjson" > "$out/corpus-1k.ndjson"
swiftc -O "$here/Stage1.swift" -o "$out/stage1"
"$out/stage1" "$out/corpus.ndjson" 20
command -v valgrind >/dev/null || { echo "valgrind is not installed: instruction counts skipped"; exit 0; }
# Valgrind cannot read the release build's debug information, so it measures a stripped copy.
cp "$bin/ChatBenchmarks" "$out/ChatBenchmarks"
strip --strip-debug "$out/ChatBenchmarks"
count() {  # count <name> <label> <toggle> <function> <command...>: instructions per event in <function>
    local name=$1 label=$2 toggle=$3 function=$4; shift 4
    for rounds in 1 3; do
        valgrind --tool=callgrind --callgrind-out-file="$out/$name-$rounds.out" --toggle-collect="$toggle" "$@" "$rounds" >/dev/null 2>&1
    done
    python3 - "$out/$name-1.out" "$out/$name-3.out" "$function" "$label" <<'PY'
import re, subprocess, sys
def inclusive(path, function):
    text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", path], capture_output=True, text=True).stdout
    return max((int(m.group(1).replace(",", "")) for m in re.finditer(r"^\s*([\d,]+) .*?:(\S+) \[", text, re.M) if function in m.group(2)), default=0)
one, three, function, label = sys.argv[1:]
print(f"{label}: {(inclusive(three, function) - inclusive(one, function)) / 2000:,.0f} instructions per event")
PY
}
count stage1 "stage 1 alone (this experiment)" '*stage1*' stage1 "$out/stage1" "$out/corpus-1k.ndjson"
# In the decode benchmark each event is indexed twice: the event, then its workout payload.
# The benchmark rewrites the 1,000-event file it is given, with the same events.
count index "ChatModels index, event and workout payload together" '*DecodeBenchmarkO7runOnce*' JSONIndexV5bytes \
    "$out/ChatBenchmarks" decode "$out/corpus-1k.ndjson" 1000
