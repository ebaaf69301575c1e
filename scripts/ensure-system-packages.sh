#!/usr/bin/env bash
# Installs the Debian packages ChatBotKit needs when they are missing.
# As root it runs apt-get; otherwise it prints the exact command and fails.
set -euo pipefail

# openssl makes the self-signed certificate of the TLS tests; ca-certificates lets libcurl verify real servers;
# libssl-dev is the libcrypto the client hashes and signs with (libcurl and libwebsockets link it anyway);
# zlib1g-dev is the zlib that gzips and inflates webhook bodies (compress-nio links it);
# postgresql is the lease store the scale-out tests start a server of (bots on several nodes);
# chromium and chromium-driver are the real browser the playground's tests drive (selenium), and
# fonts-noto-color-emoji the font its reactions and icons are drawn in (its screenshots are the README's).
packages=(libcurl4-openssl-dev libwebsockets-dev libssl-dev libmagic-dev libsqlite3-dev zlib1g-dev pkg-config curl openssl ca-certificates postgresql
    chromium chromium-driver fonts-noto-color-emoji)
missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done
# The Python tests need venv with pip; Debian ships those in python3-venv.
if ! command -v python3 >/dev/null 2>&1; then
    missing+=(python3 python3-venv)
elif ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    missing+=(python3-venv)
fi

if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

command="apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
    echo "Installing missing system packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
    echo "ChatBotKit needs these system packages: ${missing[*]}" >&2
    echo "Install them with:" >&2
    echo "    sudo sh -c '$command'" >&2
    exit 1
fi
