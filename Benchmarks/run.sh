#!/usr/bin/env bash
# Runs every benchmark in one go, release build, each next to its peer:
#   decode  - ChatModels typed decode+classify vs orjson.loads / json.loads (same corpus)
#   upload  - ChatClient vs curl -F vs the Python SDK's send_file, 100 MiB and 1 GiB, same dev server
#   events  - message.new events/s over one WebSocket
#   bot     - bot dispatch events/s on one core, and handler latency at 1,000 msg/s
# Usage: Benchmarks/run.sh [decode|upload|events|bot ...]   (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
out=Benchmarks/.out
mkdir -p "$out"
python=${VENV:-.venv}/bin/python
swift build -c release --product ChatBenchmarks >&2
swift build -c release --product bots >&2
bin=$(swift build -c release --show-bin-path)
which=("$@")
[ ${#which[@]} -eq 0 ] && which=(decode upload events bot)
for name in "${which[@]}"; do
    echo "== $name"
    case $name in
        decode)
            "$bin/ChatBenchmarks" decode "$out/corpus.ndjson" 10000 5 | tee "$out/decode.txt"
            swift_rate=$(sed -n 's/.*swift_events_per_s=\([0-9]*\).*/\1/p' "$out/decode.txt")
            "$python" Benchmarks/peers/decode_peer.py "$out/corpus.ndjson" 5 "$swift_rate"
            ;;
        upload) "$python" Benchmarks/peers/run_uploads.py "$bin" "$out" ;;
        events) "$bin/ChatBenchmarks" events 50000 2>&1 | grep -v ' info \| debug ' ;;
        bot) "$bin/ChatBenchmarks" bot 50000 10 2>&1 | grep -v ' info \| debug ' ;;
        *) echo "unknown benchmark $name" >&2; exit 2 ;;
    esac
done
