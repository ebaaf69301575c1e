"""Bots in many channels (issue 59), release builds of `bots serve` and `bots run`, for each size:

* our bot's first start (it joins every channel: paged Query Channels, then one add per channel),
  its second start (already a member: pages only), the time until a workout posted in the last
  channel is answered, and after a kill -9 and restart of the dev server the time until the bot
  reconnected (pages + batched /sync) and until a workout in the last channel is answered; the
  HTTP calls each took (the bot's own watch report) and the bot's RSS;
* the peer in the same run, on the same server: the official Python SDK joining the same
  channels one at a time as its docs show (`channel.create(user)` then `add_members`), and
  re-reading them one `query` each, as a client recovering channel by channel does (the SDK has no
  way to watch: it cannot pass a connection id).

Usage: channels_bench.py <bin dir> <out dir> [sizes...]   (default 10 100 1000 10000)
Prints one `channels=N ...` line per size.
"""

import re
import subprocess
import sys
import threading
import time
from pathlib import Path

from stream_chat import StreamChat

API_KEY = "bench-key"
API_SECRET = "bench-secret-of-at-least-thirty-two-bytes"
WORKOUT = {"type": "workout", "workout-type": "run", "workout-distance-meters": 5000, "workout-duration-seconds": 1500,
           "workout-energy-cal": 400}


class Process:
    """A child process whose output lines are read as they come, with the time each came."""

    def __init__(self, command, cwd=None):
        self.started = time.monotonic()
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=cwd)
        self.lines = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.append((time.monotonic(), line))

    def wait_for(self, pattern, after=0, timeout=600):
        """The first match of `pattern` in a line that came after index `after`, its time and index."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for index in range(after, len(self.lines)):
                stamp, line = self.lines[index]
                match = re.search(pattern, line)
                if match:
                    return match, stamp, index
            if self.process.poll() is not None:
                break
            time.sleep(0.01)
        raise SystemExit(f"no line matching {pattern!r}:\n" + "".join(line for _, line in self.lines[-40:]))

    def rss_mib(self):
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def stop(self, kill=False):
        if self.process.poll() is None:
            self.process.kill() if kill else self.process.terminate()
            self.process.wait(timeout=60)


def start_server(bin_dir, folder, port=0):
    config = folder / "serve.yaml"
    config.write_text(f"server:\n  api_key: {API_KEY}\n  api_secret: {API_SECRET}\n"
                      f"embedded:\n  rate_limits: {{default: 10000000}}\nbots: []\n")
    server = Process([str(bin_dir / "bots"), "serve", "--config", str(config), "--port", str(port), "--data", str(folder / "data"),
                      "--log-level", "error"])
    match, _, _ = server.wait_for(r"listening on (http://127\.0\.0\.1:(\d+))", timeout=60)
    return server, match.group(1), int(match.group(2))


def start_bot(bin_dir, folder, base_url, cids):
    config = folder / "bots.yaml"
    channels = "".join(f"      - {cid}\n" for cid in cids)
    config.write_text(f"server:\n  url: {base_url}\n  api_key: {API_KEY}\n  api_secret: {API_SECRET}\n"
                      f"bots:\n  - name: workout\n    kind: workout\n    user: workout-bot\n    database: {folder}/workouts.sqlite\n"
                      f"    channels:\n{channels}")
    return Process([str(bin_dir / "bots"), "run", "--config", str(config), "--log-level", "info"], cwd=folder)


def answered_after(client, cid, started):
    """Posts a workout in `cid` as alice and returns the seconds from `started` until the bot answered."""
    kind, name = cid.split(":")
    channel = client.channel(kind, name)
    sent = channel.send_message({"text": "run", "attachments": [WORKOUT]}, "alice")["message"]
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        messages = channel.query(messages={"limit": 5})["messages"]
        if any(m["user"]["id"] == "workout-bot" and m["created_at"] > sent["created_at"] for m in messages):
            return time.monotonic() - started
        time.sleep(0.02)
    raise SystemExit(f"the bot did not answer in {cid}")


def calls_of(match_line):
    return int(re.search(r"in (\d+) calls?", match_line).group(1))


def run_size(bin_dir, out_dir, size):
    folder = out_dir / f"channels-{size}"
    subprocess.run(["rm", "-rf", str(folder)], check=True)
    folder.mkdir(parents=True)
    server, base_url, port = start_server(bin_dir, folder)
    bot = None
    try:
        client = StreamChat(API_KEY, API_SECRET, base_url=base_url + "/", timeout=60)
        client.upsert_users([{"id": "alice"}, {"id": "workout-bot"}, {"id": "peer-bot"}])
        cids = [f"messaging:b{index:05d}" for index in range(size)]
        for cid in cids:
            client.channel("messaging", cid.split(":")[1], {"members": ["alice"]}).create("alice")

        # The peer: the Python SDK joins each channel (get-or-create, then add), one call each.
        started = time.monotonic()
        for cid in cids:
            channel = client.channel("messaging", cid.split(":")[1])
            channel.create("peer-bot")
            channel.add_members(["peer-bot"])
        peer_join = time.monotonic() - started
        started = time.monotonic()
        for cid in cids:
            client.channel("messaging", cid.split(":")[1]).query(watch=False, state=True, messages={"limit": 0})
        peer_requery = time.monotonic() - started

        bot = start_bot(bin_dir, folder, base_url, cids)
        match, stamp, _ = bot.wait_for(r"Bot workout is ready: (.*)")
        first_ready, first_calls = stamp - bot.started, calls_of(match.group(1))
        bot.stop()
        bot = start_bot(bin_dir, folder, base_url, cids)
        match, stamp, _ = bot.wait_for(r"Bot workout is ready: (.*)")
        ready, ready_calls = stamp - bot.started, calls_of(match.group(1))
        answered = answered_after(client, cids[-1], bot.started)
        rss = bot.rss_mib()

        server.stop(kill=True)
        restarted = time.monotonic()
        server, _, _ = start_server(bin_dir, folder, port)
        match, stamp, _ = bot.wait_for(r"Event connection re-established: (.*)")
        recovered, recovery_calls = stamp - restarted, calls_of(match.group(1))
        recovered_answer = answered_after(client, cids[-1], restarted)
        print(f"channels={size} first_ready_s={first_ready:.2f} first_calls={first_calls} ready_s={ready:.2f} ready_calls={ready_calls} "
              f"answered_s={answered:.2f} recovered_s={recovered:.2f} recovery_calls={recovery_calls} "
              f"recovered_answer_s={recovered_answer:.2f} bot_rss_mib={rss:.1f} "
              f"peer_join_s={peer_join:.2f} peer_join_calls={2 * size} peer_requery_s={peer_requery:.2f} peer_requery_calls={size}",
              flush=True)
        return rss
    finally:
        if bot:
            bot.stop()
        server.stop()


def main():
    bin_dir, out_dir = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    sizes = [int(arg) for arg in sys.argv[3:]] or [10, 100, 1000, 10000]
    out_dir.mkdir(parents=True, exist_ok=True)
    rss = {size: run_size(bin_dir, out_dir, size) for size in sizes}
    if len(sizes) > 1:
        low, high = min(sizes), max(sizes)
        print(f"bot RSS growth per channel from {low} to {high}: {(rss[high] - rss[low]) * 1024 * 1024 / (high - low):.0f} bytes")


if __name__ == "__main__":
    main()
