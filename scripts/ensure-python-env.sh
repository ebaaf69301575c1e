#!/usr/bin/env bash
# Creates .venv with the Python packages the tests and benchmarks use, from PyPI.
set -euo pipefail

venv="${1:-.venv}"
requirements="Tests/python/requirements.txt"
stamp="$venv/.requirements.sha"
wanted=$(sha256sum "$requirements" | cut -d' ' -f1)

if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ]; then
    exit 0
fi
echo "Preparing the Python environment in $venv (stream-chat, websockets, pytest, pytest-xdist, orjson, selenium from PyPI)"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
echo "$wanted" > "$stamp"
