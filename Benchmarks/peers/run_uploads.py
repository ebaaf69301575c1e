"""The upload benchmark, side by side on one dev server (`bots serve`, release build):
ChatClient (Swift, libcurl), `curl -F`, and the official Python SDK's send_file, for a 100 MiB
and a 1 GiB file. Each uploader runs as its own process; its peak RSS comes from wait4's
rusage. The server's peak RSS (VmHWM) is read after each size, to show it does not grow with
the file."""

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from stream_chat import StreamChat

API_KEY = "bench-key"
API_SECRET = "bench-secret-of-at-least-thirty-two-bytes"


def run_measured(command):
    """Runs `command`, returns (stdout, seconds, peak RSS in MiB). The peak is the child's own
    VmHWM, sampled until it exits (wait4's ru_maxrss would include the forked Python parent)."""
    with tempfile.TemporaryFile(mode="w+") as output:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, text=True)
        peak = 0.0
        while process.poll() is None:
            peak = max(peak, server_peak_mib(process.pid))
            time.sleep(0.01)
        elapsed = time.perf_counter() - start
        output.seek(0)
        text = output.read()
    if process.returncode != 0:
        raise SystemExit(f"{command[0]} failed ({process.returncode}):\n{text}")
    return text, elapsed, peak


def server_peak_mib(pid):
    """VmHWM of `pid` in MiB (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0.0


def make_file(path: Path, size: int):
    if path.exists() and path.stat().st_size == size:
        return
    chunk = os.urandom(1 << 20)
    with open(path, "wb") as out:
        for _ in range(size >> 20):
            out.write(chunk)


def main():
    root = Path(__file__).resolve().parents[2]
    bin_dir, out_dir = Path(sys.argv[1]), Path(sys.argv[2])
    python = sys.executable
    out_dir.mkdir(parents=True, exist_ok=True)
    data_dir = out_dir / "upload-server-data"
    server = subprocess.Popen(
        [str(bin_dir / "bots"), "serve", "--port", "0", "--data", str(data_dir), "--api-key", API_KEY, "--api-secret", API_SECRET,
         "--upload-size-limit", "2GB", "--log-level", "error"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        base_url = None
        for line in server.stdout:
            match = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
            if match:
                base_url = match.group(1)
                break
        if base_url is None:
            raise SystemExit("the dev server did not start")
        admin = StreamChat(API_KEY, API_SECRET, base_url=base_url + "/")
        admin.upsert_users([{"id": "bench-swift"}, {"id": "bench-python"}, {"id": "bench-curl"}])
        admin.channel("messaging", "bench").create("bench-curl")
        token = admin.auth_token  # the server token, as the SDK signs it
        print(f"dev server {base_url} (pid {server.pid}), peak RSS at start {server_peak_mib(server.pid):.1f} MiB")
        results = []
        for label, size in [("100 MiB", 100 << 20), ("1 GiB", 1 << 30)]:
            path = out_dir / f"upload-{size >> 20}MiB.bin"
            make_file(path, size)
            url = f"{base_url}/channels/messaging/bench/file?api_key={API_KEY}"
            curl_s, curl_rss, swift_seconds, swift_rss, swift_growth = float("inf"), 0.0, float("inf"), 0.0, 0.0
            for _ in range(2):  # alternate, best of two, so neither gains from going second
                curl_out, _, rss = run_measured(
                    ["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code} %{time_total}", "-H", f"Authorization: {token}", "-H",
                     "stream-auth-type: jwt", "-F", f"file=@{path}", "-F", 'user={"id":"bench-curl"}', url])
                status, seconds = curl_out.split()  # curl's own transfer time, as ChatClient's excludes start-up
                if status != "201":
                    raise SystemExit(f"curl upload answered HTTP {curl_out}")
                seconds = float(seconds)
                curl_s, curl_rss = min(curl_s, seconds), max(curl_rss, rss)
                swift_out, _, rss = run_measured([str(bin_dir / "ChatBenchmarks"), "upload", base_url, API_KEY, API_SECRET, str(path)])
                swift_seconds = min(swift_seconds, float(re.search(r"seconds=([\d.]+)", swift_out).group(1)))
                swift_growth = max(swift_growth, float(re.search(r"rss_growth_mib=([\d.]+)", swift_out).group(1)))
                swift_rss = max(swift_rss, rss)
            sdk_out, sdk_s, sdk_rss = run_measured([python, str(root / "Benchmarks/peers/sdk_upload.py"), base_url, API_KEY, API_SECRET, str(path)])
            sdk_seconds = float(re.search(r"elapsed=([\d.]+)", sdk_out).group(1))
            server_peak = server_peak_mib(server.pid)
            mb = size / 1e6
            print(f"{label}:")
            print(f"  curl -F          {mb / curl_s:8.1f} MB/s   peak RSS {curl_rss:8.1f} MiB")
            print(f"  ChatClient       {mb / swift_seconds:8.1f} MB/s   peak RSS {swift_rss:8.1f} MiB (growth during upload {swift_growth:.1f} MiB)")
            print(f"  Python send_file {mb / sdk_seconds:8.1f} MB/s   peak RSS {sdk_rss:8.1f} MiB")
            print(f"  ChatClient / curl throughput: {(mb / swift_seconds) / (mb / curl_s):.2f}x")
            print(f"  dev server peak RSS so far: {server_peak:.1f} MiB")
            results.append((label, mb / curl_s, mb / swift_seconds, mb / sdk_seconds, swift_growth, server_peak))
        for label, curl_rate, swift_rate, sdk_rate, growth, peak in results:
            print(f"RESULT upload size={label.replace(' ', '')} curl_mb_s={curl_rate:.1f} swift_mb_s={swift_rate:.1f} "
                  f"python_mb_s={sdk_rate:.1f} swift_vs_curl={swift_rate / curl_rate:.2f} swift_rss_growth_mib={growth:.1f} "
                  f"server_peak_rss_mib={peak:.1f}")
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
