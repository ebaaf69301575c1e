#!/usr/bin/env bash
# Runs every benchmark in one go, release build, each next to its peer:
#   decode  - ChatModels typed decode+classify vs orjson.loads / json.loads (same corpus, paired chunks on one CPU)
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
#   ai      - streamed AI replies: first token -> text on a watcher's socket, and partial updates per 1,000 tokens, vs Stream's sample approach (a partial update per chunk, Python SDK)
#   commands - custom command requests answered (the workout bot's /log: checked, decoded, typed, answered) vs a Python handler with verify_webhook + json/orjson
#   channels - a bot in 10/100/1,000/10,000 channels: time to ready, to an answer in the last channel, after a dev server
#              kill and restart, HTTP calls and RSS, vs the Python SDK joining (and re-reading) the same channels one at a time
#   beforesend - Before Message Send hook round trips/s, and p50/p99 decision time on a message with one 25 MB file: the moderation
#                bot (range request + libmagic) vs a plain Python hook (verify_webhook + whole download + python-magic)
# Usage: Benchmarks/run.sh [decode|upload|events|bot|metrics|reuse|checkpoint|probe|scaleout|tracing|webhook|commands|beforesend|ai|channels ...]   (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
out=Benchmarks/.out
mkdir -p "$out"
python=${VENV:-.venv}/bin/python
swift build -c release --traits Tools --product ChatBenchmarks >&2
swift build -c release --traits Tools --product bots >&2
bin=$(swift build -c release --traits Tools --show-bin-path)
which=("$@")
[ ${#which[@]} -eq 0 ] && which=(decode upload events bot metrics reuse checkpoint probe scaleout tracing webhook commands beforesend ai channels)
for name in "${which[@]}"; do
    echo "== $name"
    case $name in
        decode)
            # This VM's speed changes by tens of percent within seconds and sometimes halves for
            # a while, so figures of ours and of the peers taken a few seconds apart can mislead
            # either way (five alternating passes once gave 1.58x, 0.99x, 0.95x, 0.78x and 1.85x).
            # The absolute figures (best of three rounds each) come first; the ratio the target
            # is judged by comes from paired_decode.py: both sides timed on the same chunk of
            # 5,000 events a tenth of a second apart on the same CPU, 41 times, and the median of those pairs.
            "$bin/ChatBenchmarks" decode "$out/corpus.ndjson" 10000 3 | tee "$out/decode.txt"
            "$python" Benchmarks/peers/decode_peer.py "$out/corpus.ndjson" 3 | tee "$out/peers.txt"
            "$python" Benchmarks/peers/paired_decode.py "$bin/ChatBenchmarks" "$out/corpus.ndjson" 41 5000 | tee "$out/paired.txt"
            ;;
        upload) "$python" Benchmarks/peers/run_uploads.py "$bin" "$out" ;;
        ai) "$python" Benchmarks/peers/ai_stream.py "$bin" 5 400 | tee "$out/ai.txt" ;;
        channels) "$python" Benchmarks/peers/channels_bench.py "$bin" "$out" | tee "$out/channels.txt" ;;
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
        beforesend)
            "$bin/ChatBenchmarks" beforesend "$python" 2000 40 4 2>&1 | grep -v ' info \| debug \| notice ' | tee "$out/beforesend.txt"
            ours=$(sed -n 's/.*swift_per_s=\([0-9]*\).*/\1/p' "$out/beforesend.txt")
            peer=$(sed -n 's/.*peer_per_s=\([0-9]*\).*/\1/p' "$out/beforesend.txt")
            p50=$(sed -n 's/.*swift_p50_ms=\([0-9.]*\).*/\1/p' "$out/beforesend.txt")
            peer_p50=$(sed -n 's/.*peer_p50_ms=\([0-9.]*\).*/\1/p' "$out/beforesend.txt")
            awk -v s="$ours" -v p="$peer" -v a="$p50" -v b="$peer_p50" 'BEGIN {
                printf "BeforeSendIntake vs a Python hook: %.2fx the round trips, %.1fx faster to decide on a 25 MB file (p50)\n", s / p, b / a }'
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
