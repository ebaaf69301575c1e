"""`bots doctor` against the real dev server (`bots serve` on a loopback port), with the official
Python SDK changing what the doctor should see: the app's upload rules, users, channels, members."""

import json
import socket
import subprocess
import threading
import time
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import requests

from conftest import API_KEY, API_SECRET, bots_binary


def write_config(folder: Path, server_url: str, secret: str = API_SECRET, channels: str = "[messaging:general, messaging:lab]") -> Path:
    config = folder / "bots.yaml"
    config.write_text(f"""
server:
  url: {server_url}
  api_key: {API_KEY}
  api_secret: {secret}
bots:
  - name: workout
    kind: workout
    user: workout-bot
    channels: {channels}
    database: {folder}/workouts.sqlite
  - name: archive
    kind: archive
    user: archive-bot
    channels: [messaging:general]
    folder: {folder}/archive
""")
    return config


def doctor(config: Path, *arguments):
    return subprocess.run([bots_binary(), "doctor", "--config", str(config), "--log-level", "critical", *arguments],
                          capture_output=True, text=True, timeout=90, cwd=config.parent)


def line(result, subject: str) -> str:
    found = [text for text in result.stdout.splitlines() if text[6:].startswith(subject + ":")]
    assert len(found) == 1, f"no single line for {subject!r} in:\n{result.stdout}{result.stderr}"
    return found[0]


def test_a_healthy_setup_passes_and_says_what_the_bots_will_do_at_start(server, client, tmp_path):
    client.update_app_settings(file_upload_config={"blocked_file_extensions": [".exe"], "size_limit": 5 * 1024 * 1024})
    client.upsert_users([{"id": "workout-bot"}, {"id": "archive-bot"}, {"id": "ann"}])
    client.channel("messaging", "general").create("ann")
    client.channel("messaging", "general").add_members(["archive-bot"])
    client.channel("messaging", "gym").create("ann")
    client.channel("messaging", "gym").add_members(["archive-bot"])

    result = doctor(write_config(tmp_path, server.base_url))

    assert result.returncode == 0, result.stdout + result.stderr
    assert line(result, "server").startswith(f"ok    server: {server.base_url} (server.url) answers in ")
    assert line(result, "credentials") == f'ok    credentials: api key "{API_KEY}" and its secret are accepted'
    assert line(result, "uploads").startswith("ok    uploads: files: up to 5 MB, not .exe; images: up to 100 MB")
    assert line(result, "realtime").startswith("ok    realtime: a WebSocket connection as workout-bot got its first health check in ")
    assert line(result, "clock").startswith("ok    clock: this machine's clock is "), "the dev server runs on this machine's clock"
    assert line(result, "bot workout") == ("note  bot workout: user workout-bot exists; messaging:lab does not exist yet "
                                           "(created at start); joins messaging:general at start; "
                                           "a start watches 2 channels in about 4 calls (2 Query Channels pages, 1 to create, 1 to join); "
                                           "no checkpoint yet: it handles what comes from its first start on")
    assert line(result, "bot archive") == ("ok    bot archive: user archive-bot exists; a member of messaging:general; "
                                           "also follows messaging:gym, of which it is a member; "
                                           "a start watches 2 channels in about 1 call (1 Query Channels page, 0 to create, 0 to join); "
                                           "no checkpoint yet: it handles what comes from its first start on")
    assert line(result, "rate limits").startswith("ok    rate limits: server side, per minute: SendMessage ")
    assert "UploadFile 10000/10000 left, UploadImage 10000/10000 left" in line(result, "rate limits")
    # The workout bot's /log needs a webhook: section, which this file does not have: a note.
    assert line(result, "commands").startswith("note  commands: /log (workout) would go unanswered")
    assert result.stdout.splitlines()[-1] == "All 8 checks passed, 2 notes."
    # It changes nothing: the channel it would create is still missing, the member still not one.
    assert client.query_channels({"cid": "messaging:lab"})["channels"] == []
    members = client.channel("messaging", "general").query_members({"id": "workout-bot"})
    assert members == []


def write_checkpoint(folder: Path, bot: str, text: str):
    file = folder / ".bots" / "checkpoints" / f"{bot}.json"
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(text)
    return file


def checkpoint_text(bot: str, handled_ago: float) -> str:
    handled = datetime.now(timezone.utc) - timedelta(seconds=handled_ago)
    stamp = handled.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return json.dumps({"version": 1, "bot": bot, "watching_since": stamp, "handled_through": stamp,
                       "recently_handled": ["m1"], "saved_at": stamp})


def test_what_each_bot_catches_up_on_at_start_is_read_from_its_checkpoint(server, client, tmp_path):
    client.upsert_users([{"id": "workout-bot"}, {"id": "archive-bot"}])
    client.channel("messaging", "general").create("workout-bot")
    client.channel("messaging", "general").add_members(["workout-bot", "archive-bot"])
    config = write_config(tmp_path, server.base_url, channels="[messaging:general]")

    write_checkpoint(tmp_path, "workout", checkpoint_text("workout", 185))
    write_checkpoint(tmp_path, "archive", checkpoint_text("archive", 3 * 86_400))
    result = doctor(config)
    assert result.returncode == 0, result.stdout + result.stderr
    assert line(result, "bot workout").endswith("; its checkpoint was saved 3m ago: its next start catches up from there")
    assert line(result, "bot workout").startswith("ok    ")
    assert line(result, "bot archive") == ("note  bot archive: user archive-bot exists; a member of messaging:general; "
                                           "a start watches 1 channel in about 1 call (1 Query Channels page, 0 to create, 0 to join); "
                                           "its checkpoint was saved 3d ago, longer than catch_up (1d): "
                                           "its next start catches up on the last 1d only")

    broken = write_checkpoint(tmp_path, "workout", '{"version": 1, "bot": "workout"}')
    result = doctor(config)
    assert result.returncode == 0, result.stdout + result.stderr
    assert line(result, "bot workout") == (f"note  bot workout: user workout-bot exists; a member of messaging:general; "
                                           "a start watches 1 channel in about 1 call (1 Query Channels page, 0 to create, 0 to join); "
                                           f"the checkpoint {broken} cannot be read: \"watching_since\" is missing; "
                                           "it would start without catching up (it keeps the file aside)")
    assert broken.read_text() == '{"version": 1, "bot": "workout"}', "the doctor changes nothing"


def test_a_deactivated_or_deleted_bot_user_fails_its_bots_check(server, client, tmp_path):
    client.upsert_users([{"id": "workout-bot"}, {"id": "archive-bot"}])
    client.channel("messaging", "general").create("workout-bot")
    client.channel("messaging", "general").add_members(["workout-bot", "archive-bot"])
    config = write_config(tmp_path, server.base_url, channels="[messaging:general]")
    client.deactivate_user("archive-bot")
    result = doctor(config)
    assert result.returncode == 1, result.stdout + result.stderr
    assert line(result, "bot archive") == ("FAIL  bot archive: user archive-bot is deactivated, so the bot could neither connect nor post; "
                                           "reactivate it first")
    assert line(result, "bot workout").startswith("ok    bot workout: user workout-bot exists")

    client.reactivate_user("archive-bot")
    client.delete_user("archive-bot")
    assert line(doctor(config), "bot archive").endswith("user archive-bot is deleted, so the bot could neither connect nor post; restore it first")
    client.restore_users(["archive-bot"])
    assert doctor(config).returncode == 0


def test_a_wrong_secret_fails_the_credentials_and_skips_what_needs_them(server, tmp_path):
    result = doctor(write_config(tmp_path, server.base_url, secret="not-the-secret-of-this-app-at-all-32-bytes"))

    assert result.returncode == 1, result.stdout + result.stderr
    assert line(result, "server").startswith(f"ok    server: {server.base_url} (server.url) answers")
    credentials = line(result, "credentials")
    assert credentials.startswith(f'FAIL  credentials: the server refused api key "{API_KEY}" or its secret: ')
    assert credentials.endswith("check server.api_key and server.api_secret (or the variables they name) against the app's keys")
    assert line(result, "the rest") == "skip  the rest: needs the server and its credentials"
    assert "realtime" not in result.stdout
    assert result.stdout.splitlines()[-1].startswith("1 check failed (2 passed)")


def test_no_server_at_the_address_fails_with_how_to_start_one(tmp_path):
    with socket.socket() as probe:  # a loopback port nothing listens on once closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = write_config(tmp_path, f"http://127.0.0.1:{port}")

    result = doctor(config)

    assert result.returncode == 1, result.stdout + result.stderr
    assert line(result, "server").startswith(
        f"FAIL  server: [bots.server_unreachable] no chat server answers at http://127.0.0.1:{port}; "
        "check server.url in the configuration, or pass --server")


class RestOnlyProxy(BaseHTTPRequestHandler):
    """A reverse proxy that passes REST calls on to the dev server and turns WebSocket upgrades
    away, as a proxy without WebSocket support does."""

    protocol_version = "HTTP/1.1"
    target = ""
    clock_skew = 0  # seconds the proxy's Date header is ahead of this machine's clock

    def date_time_string(self, timestamp=None):
        return super().date_time_string(time.time() + self.clock_skew)

    def forward(self):
        if self.headers.get("Upgrade", "").lower() == "websocket":
            self.send_response(403)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        length = int(self.headers.get("Content-Length") or 0)
        skipped = {"host", "content-length", "connection", "transfer-encoding", "date"}
        headers = {name: value for name, value in self.headers.items() if name.lower() not in skipped}
        answer = requests.request(self.command, self.target + self.path, data=self.rfile.read(length) if length else None,
                                  headers=headers, timeout=10)
        self.send_response(answer.status_code)
        for name, value in answer.headers.items():
            if name.lower() not in skipped | {"content-encoding"}:
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(answer.content)))
        self.end_headers()
        self.wfile.write(answer.content)

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = forward

    def log_message(self, *arguments):
        pass


def doctor_behind_proxy(server, tmp_path, clock_skew=0):
    """`bots doctor` on a RestOnlyProxy in front of `server`, whose Date header is `clock_skew`
    seconds ahead; the proxy is stopped afterwards."""
    handler = type("Handler", (RestOnlyProxy,), {"target": server.base_url, "clock_skew": clock_skew})
    proxy = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=proxy.serve_forever, daemon=True)
    thread.start()
    try:
        proxy_url = f"http://127.0.0.1:{proxy.server_address[1]}"
        return doctor(write_config(tmp_path, proxy_url), "--timeout", "3")
    finally:
        proxy.shutdown()
        proxy.server_close()
        thread.join(timeout=10)


def test_a_proxy_that_turns_websockets_away_fails_the_realtime_check_and_says_why(server, tmp_path):
    result = doctor_behind_proxy(server, tmp_path)

    assert result.returncode == 1, result.stdout + result.stderr
    assert line(result, "credentials").startswith("ok    credentials:"), "REST calls pass the proxy"
    realtime = line(result, "realtime")
    assert realtime.startswith("FAIL  realtime: no WebSocket connection as workout-bot: "), realtime
    assert "it answered HTTP 403 instead of switching to the WebSocket protocol" in realtime, realtime
    assert realtime.endswith("; the bots would get no messages")
    assert line(result, "bot workout").startswith("note  bot workout: ")
    assert result.stdout.splitlines()[-1].startswith("1 check failed (")


@pytest.mark.parametrize("skew, verdict, says", [
    (120, "FAIL", "behind the server's (±1.5 s): more than the 30s before expiry at which bots refresh signed links, "
                  "so the bots would use signed links after they expired; sync it (timedatectl set-ntp true)"),
    (-120, "FAIL", "ahead of the server's (±1.5 s): more than the 30s before expiry at which bots refresh signed links, "
                   "so the bots would refresh signed links long before they expire; sync it (timedatectl set-ntp true)"),
    (10, "note", "behind the server's (±1.5 s); links still refresh in time, but sync it (timedatectl set-ntp true)"),
])
def test_a_server_whose_clock_differs_from_this_one_is_told(server, tmp_path, skew, verdict, says):
    # The proxy's Date header plays a server whose clock is `skew` seconds ahead of this one.
    result = doctor_behind_proxy(server, tmp_path, clock_skew=skew)
    clock = line(result, "clock")
    assert clock.startswith(f"{verdict:<6}clock: this machine's clock is "), clock
    assert clock.endswith(says), clock
    measured = float(clock.split("clock is ")[1].split(" s ")[0])
    assert abs(measured - abs(skew)) <= 1.6, clock


def test_a_configuration_without_bots_gets_a_note_and_no_realtime_check(server, tmp_path):
    config = write_config(tmp_path, server.base_url)
    config.write_text(config.read_text().split("bots:")[0] + "bots: []\n")

    result = doctor(config)

    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[0] == f"note  {config}: no bots: `bots run` would run none (add them under bots:)"
    assert line(result, "credentials") == f'ok    credentials: api key "{API_KEY}" and its secret are accepted'
    assert "realtime:" not in result.stdout, "no bot takes its events over a WebSocket"


def test_a_configuration_with_a_mistake_is_located_and_nothing_is_asked_of_the_server(tmp_path):
    config = write_config(tmp_path, "http://127.0.0.1:1")
    config.write_text(config.read_text().replace("channels: [messaging:general]", "chanels: [messaging:general]"))

    result = doctor(config)

    assert result.returncode == 78, result.stdout + result.stderr
    # Located at the misspelt key (line 15), not at the start of the bot's entry (line 12).
    assert result.stdout == (f'FAIL  {config}:15:5: error: bots[1] needs "channels"; '
                             f'is "chanels" a misspelling of it? [config.missing_key]\n')


def test_budgets_that_add_up_to_more_than_the_apps_quota_get_a_note(server, tmp_path):
    config = write_config(tmp_path, server.base_url)
    text = config.read_text().replace("    kind: workout\n", "    kind: workout\n    rate_budget: {messages: 6000/min, uploads: 5/s}\n")
    text = text.replace("    kind: archive\n", "    kind: archive\n    rate_budget: {calls: 100/s, max_wait: 5s}\n")
    config.write_text(text)

    result = doctor(config)

    rate_limits = line(result, "rate limits")
    assert rate_limits.startswith("note  rate limits: server side, per minute: SendMessage "), rate_limits
    assert "budgets: workout messages 6000/min, uploads 5/s, waiting up to 30s; archive calls 100/s, waiting up to 5s" in rate_limits
    # 6,000 + 6,000 (the archive bot's calls) a minute against the dev server's 10,000.
    assert ("the bots' messages budgets add up to 12000/min, over the app's SendMessage quota of 10000/min, "
            "which every client of the key shares: the quota holds them back first") in rate_limits
    assert "uploads budgets" not in rate_limits, "300 + 6,000 uploads a minute fit in 10,000"


def with_webhook_bots(config: Path):
    text = config.read_text().replace("bots:\n", "webhook: {port: 8789}\nbots:\n", 1)
    text = text.replace("    kind: workout\n", "    kind: workout\n    events: webhook\n")
    config.write_text(text)
    return config


def test_webhook_bots_need_the_apps_webhook_url_and_the_events_they_handle(server, client, tmp_path):
    config = with_webhook_bots(write_config(tmp_path, server.base_url))

    # No webhook_url: the webhook bots would get nothing.
    result = doctor(config)
    webhook = line(result, "webhook")
    assert webhook.startswith("FAIL  webhook: the app has no webhook_url, so workout would get no events; "), webhook
    assert "reaches http://127.0.0.1:8789/webhook" in webhook
    assert result.returncode == 1

    # Every event type, gzipped: ok.
    client.update_app_settings(webhook_url="https://bots.example.com/stream", webhook_events=[], webhook_compression_algorithm="gzip")
    webhook = line(doctor(config), "webhook")
    assert webhook == ("ok    webhook: the app posts every event, gzipped to https://bots.example.com/stream; "
                       "bots run takes them at http://127.0.0.1:8789/webhook for workout"), webhook

    # Picked types that leave out what the bots handle.
    client.update_app_settings(webhook_events=["message.new", "message.updated"])
    webhook = line(doctor(config), "webhook")
    assert webhook.startswith("note  webhook: the app posts 2 event types, gzipped to https://bots.example.com/stream"), webhook
    assert "leaves out message.deleted, channel.truncated, channel.deleted, member.added, member.removed" in webhook
    client.update_app_settings(webhook_events=["reaction.new"])
    result = doctor(config)
    assert line(result, "webhook").startswith("FAIL  webhook: "), result.stdout
    assert "leaves out message.new: the bots would get no messages" in line(result, "webhook")
    # The realtime check connects as a bot that takes its events over a WebSocket.
    assert "as archive-bot" in line(result, "realtime")


def test_bots_with_custom_commands_need_a_webhook_section_and_the_apps_handler_url(server, client, tmp_path):
    config = write_config(tmp_path, server.base_url)
    # The workout bot answers /log; without a webhook: section nothing takes it.
    commands = line(doctor(config), "commands")
    assert commands == ("note  commands: /log (workout) would go unanswered: bots.yaml has no webhook: section, "
                        "where bots run takes custom commands; add one, such as webhook: { port: 8789 }"), commands

    config.write_text(config.read_text().replace("bots:\n", "webhook: {port: 8789, commands_path: /cmd}\nbots:\n", 1))
    commands = line(doctor(config), "commands")
    assert commands.startswith("note  commands: the app has no custom_action_handler_url, so /log (workout) would go unanswered; "), commands
    assert commands.endswith("reaches http://127.0.0.1:8789/cmd/{type}"), commands

    client.update_app_settings(custom_action_handler_url="https://bots.example.com/cmd/{type}")
    commands = line(doctor(config), "commands")
    assert commands == ("note  commands: the app sends custom commands to https://bots.example.com/cmd/{type}; bots run answers /log (workout) "
                        "at http://127.0.0.1:8789/cmd/{type}; the app has no /log yet, which the bots create when they start"), commands
    client.create_command({"name": "log", "description": "Log a workout"})
    result = doctor(config)
    assert line(result, "commands").startswith("ok    commands: the app sends custom commands to https://bots.example.com/cmd/{type}"), result.stdout
    assert result.returncode == 0, result.stdout
