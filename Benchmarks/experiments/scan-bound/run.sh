#!/usr/bin/env bash
# Measures what a decoder without an index could save: ChatModels' JSON index against the same
# scan with its node output removed (SkipBuilder, generated from JSONIndex.swift), per corpus
# event. Built twice with swiftc: as one LLVM module, and split for 2 codegen threads as
# `swift build -c release` does on this 2-core machine.
# Usage: Benchmarks/experiments/scan-bound/run.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
out=Benchmarks/.out/scan-bound
mkdir -p "$out"
swift build -c release --traits Tools --product ChatBenchmarks >&2
bin=$(swift build -c release --traits Tools --show-bin-path)
# The decode benchmark writes its corpus (the same generator as Benchmarks/run.sh decode).
"$bin/ChatBenchmarks" decode "$out/corpus.ndjson" 10000 1 | grep -v RESULT
# SkipBuilder: the index builder, appending to a SkipCounter instead of a NodeBuffer.
python3 - Sources/ChatModels/JSON/JSONIndex.swift "$out/SkipBuilder.swift" <<'PY'
import sys
source = open(sys.argv[1]).read()
builder = source[source.index("private struct IndexBuilder {"):source.index("/// A readable name for a byte")]
builder = builder.replace("private struct IndexBuilder", "struct SkipBuilder").replace("IndexBuilder.", "SkipBuilder.")
builder = builder.replace("inout NodeBuffer", "inout SkipCounter")
open(sys.argv[2], "w").write("import Foundation\n\n" + builder)
PY
sources=(Sources/ChatModels/*/*.swift "$out/SkipBuilder.swift" "$here/main.swift")
for threads in 0 2; do
    swiftc -O -wmo -num-threads "$threads" -package-name scanbound -parse-as-library -module-name ScanBound \
        "${sources[@]}" -o "$out/scan-bound-$threads"
    echo "swiftc -num-threads $threads:"
    "$out/scan-bound-$threads" "$out/corpus.ndjson" 20
done
