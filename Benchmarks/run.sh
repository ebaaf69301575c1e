#!/usr/bin/env bash
# Runs every benchmark in one go, release build, each next to its peer:
#   decode  - ChatModels typed decode+classify vs orjson.loads / json.loads (same corpus)
#   upload  - ChatClient vs curl -F vs the Python SDK's send_file, 100 MiB and 1 GiB, same dev server
#   events  - message.new events/s over one WebSocket
#   bot     - bot dispatch events/s on one core, and handler latency at 1,000 msg/s
#   metrics - a running bot's events/s without a metrics backend and with Prometheus
#   reuse   - DeduplicatingCDNStorage vs the plain StreamCDNStorage: one file sent again, and files that never repeat
#   checkpoint - a running bot's events/s without a checkpoint and with one saved every second (catch_up)
#   probe   - MediaProbe's length and waveform of a 10-minute WAV vs Python's wave + audioop.max
#   scaleout - a running bot's events/s on one node, and scaled out holding its channel's lease (PostgreSQL)
#   tracing  - spans/s made and sent over OTLP/HTTP vs OpenTelemetry's Python SDK, and a bot's events/s traced vs not
#   webhook  - signed webhook requests taken (checked, decoded, queued for a bot), plain and gzipped, vs the Python SDK's verify_webhook + json/orjson
#   commands - custom command requests answered (the workout bot's /log: checked, decoded, typed, answered) vs a Python handler with verify_webhook + json/orjson
# Usage: Benchmarks/run.sh [decode|upload|events|bot|metrics|reuse|checkpoint|probe|scaleout|tracing|webhook|commands ...]   (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
out=Benchmarks/.out
mkdir -p "$out"
python=${VENV:-.venv}/bin/python
swift build -c release --product ChatBenchmarks >&2
swift build -c release --product bots >&2
bin=$(swift build -c release --show-bin-path)
which=("$@")
[ ${#which[@]} -eq 0 ] && which=(decode upload events bot metrics reuse checkpoint probe scaleout tracing webhook commands)
for name in "${which[@]}"; do
    echo "== $name"
    case $name in
        decode)
            # This VM's speed drifts by tens of percent within minutes and sometimes halves
            # for a while, so one run of each side can mislead, and so can the best of each side
            # over several passes: the two bests may come from different speeds (one run here
            # gave 1.71x that way, from passes of 0.92x, 1.02x and 1.92x). Ours and the peers
            # alternate five times; each pass gives a ratio measured close together in time, and
            # the median of those is the figure to judge the target by. The bests are printed too.
            best_swift=0 best_orjson=0 best_json=0 ratios=()
            for pass in 1 2 3 4 5; do
                echo "-- pass $pass"
                "$bin/ChatBenchmarks" decode "$out/corpus.ndjson" 10000 3 | tee "$out/decode.txt"
                "$python" Benchmarks/peers/decode_peer.py "$out/corpus.ndjson" 3 | tee "$out/peers.txt"
                swift_rate=$(sed -n 's/.*swift_events_per_s=\([0-9]*\).*/\1/p' "$out/decode.txt")
                orjson_rate=$(sed -n 's/.*orjson_events_per_s=\([0-9]*\).*/\1/p' "$out/peers.txt")
                json_rate=$(sed -n 's/.* json_events_per_s=\([0-9]*\).*/\1/p' "$out/peers.txt")
                ((swift_rate > best_swift)) && best_swift=$swift_rate
                ((orjson_rate > best_orjson)) && best_orjson=$orjson_rate
                ((json_rate > best_json)) && best_json=$json_rate
                ratios+=("$(awk -v s="$swift_rate" -v o="$orjson_rate" 'BEGIN { printf "%.3f", s / o }')")
            done
            median=$(printf '%s\n' "${ratios[@]}" | sort -n | sed -n 3p)
            awk -v s="$best_swift" -v o="$best_orjson" -v j="$best_json" -v r="${ratios[*]}" -v m="$median" 'BEGIN {
                printf "per pass, ChatModels vs orjson: %s; median %.2fx (target 1.10x)\n", r, m
                printf "best of 5 alternating passes: ChatModels %d events/s, orjson %d, json %d\n", s, o, j
                printf "ChatModels typed decode+classify vs orjson: %.2fx median of passes, %.2fx best vs best (target 1.10x), vs json: %.2fx best vs best\n", m, s / o, s / j
                printf "RESULT decode_best swift_events_per_s=%d orjson_events_per_s=%d json_events_per_s=%d median_ratio=%.3f\n", s, o, j, m
            }'
            ;;
        upload) "$python" Benchmarks/peers/run_uploads.py "$bin" "$out" ;;
        events) "$bin/ChatBenchmarks" events 50000 2>&1 | grep -v ' info \| debug ' ;;
        bot) "$bin/ChatBenchmarks" bot 50000 10 2>&1 | grep -v ' info \| debug ' ;;
        metrics) "$bin/ChatBenchmarks" metrics 50000 5 2>&1 | grep -v ' info \| debug \| notice ' ;;
        reuse) "$bin/ChatBenchmarks" reuse 32 5 4 2>&1 | grep -v ' info \| debug \| notice ' ;;
        checkpoint) "$bin/ChatBenchmarks" checkpoint 50000 5 2>&1 | grep -v ' info \| debug \| notice ' ;;
        scaleout) "$bin/ChatBenchmarks" scaleout 50000 5 2>&1 | grep -v ' info \| debug \| notice ' ;;
        tracing)
            "$bin/ChatBenchmarks" tracing 100000 50000 3 2>&1 | grep -v ' info \| debug \| notice ' | tee "$out/tracing.txt"
            "$python" Benchmarks/peers/tracing_peer.py 100000 3 | tee "$out/tracing-peer.txt"
            ours=$(sed -n 's/.*swift_spans_per_s=\([0-9]*\).*/\1/p' "$out/tracing.txt")
            peer=$(sed -n 's/.*python_spans_per_s=\([0-9]*\).*/\1/p' "$out/tracing-peer.txt")
            awk -v s="$ours" -v p="$peer" 'BEGIN { printf "OTLPTracer vs OpenTelemetry Python SDK, spans made and sent: %.1fx\n", s / p }'
            ;;
        webhook)
            "$bin/ChatBenchmarks" webhook "$out/corpus.ndjson" 10000 3 | tee "$out/webhook.txt"
            "$python" Benchmarks/peers/webhook_peer.py "$out/corpus.ndjson" 3 | tee "$out/webhook-peer.txt"
            plain=$(sed -n 's/.*swift_plain_per_s=\([0-9]*\).*/\1/p' "$out/webhook.txt")
            zipped=$(sed -n 's/.*swift_gzip_per_s=\([0-9]*\).*/\1/p' "$out/webhook.txt")
            orjson_plain=$(sed -n 's/.*orjson_plain_per_s=\([0-9]*\).*/\1/p' "$out/webhook-peer.txt")
            orjson_gzip=$(sed -n 's/.*orjson_gzip_per_s=\([0-9]*\).*/\1/p' "$out/webhook-peer.txt")
            awk -v p="$plain" -v z="$zipped" -v op="$orjson_plain" -v oz="$orjson_gzip" 'BEGIN {
                printf "WebhookIntake vs verify_webhook + orjson.loads: plain %.2fx, gzipped %.2fx\n", p / op, z / oz }'
            ;;
        commands)
            "$bin/ChatBenchmarks" commands "$out/corpus.ndjson" 10000 3 2>&1 | grep -v ' info \| debug \| notice ' | tee "$out/commands.txt"
            "$python" Benchmarks/peers/commands_peer.py "$out/corpus.ndjson" 3 | tee "$out/commands-peer.txt"
            ours=$(sed -n 's/.*swift_per_s=\([0-9]*\).*/\1/p' "$out/commands.txt")
            json_rate=$(sed -n 's/.*json_per_s=\([0-9]*\) .*/\1/p' "$out/commands-peer.txt")
            orjson_rate=$(sed -n 's/.*orjson_per_s=\([0-9]*\).*/\1/p' "$out/commands-peer.txt")
            awk -v s="$ours" -v j="$json_rate" -v o="$orjson_rate" 'BEGIN {
                printf "CustomCommandIntake vs a Python handler: %.2fx its json version, %.2fx its orjson version\n", s / j, s / o }'
            ;;
        probe)
            "$bin/ChatBenchmarks" probe "$out/recording.wav" 10 5 | tee "$out/probe.txt"
            "$python" Benchmarks/peers/waveform_peer.py "$out/recording.wav" 5 | tee "$out/probe-peer.txt"
            swift_rate=$(sed -n 's/.*swift_mb_per_s=\([0-9]*\).*/\1/p' "$out/probe.txt")
            python_rate=$(sed -n 's/.*python_mb_per_s=\([0-9]*\).*/\1/p' "$out/probe-peer.txt")
            awk -v s="$swift_rate" -v p="$python_rate" 'BEGIN { printf "MediaProbe waveform vs wave + audioop.max: %.2fx\n", s / p }'
            rm -f "$out/recording.wav"
            ;;
        *) echo "unknown benchmark $name" >&2; exit 2 ;;
    esac
done
