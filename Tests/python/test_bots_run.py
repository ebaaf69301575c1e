"""`bots run`, the main job, end to end: a temporary bots.yaml with the embedded dev server on
port 0 and the three example bots; the official Python SDK plays the user."""

import contextlib
import datetime
import json
import os
import queue
import re
import shlex
import shutil
import signal
import sqlite3
import socket
import subprocess
import threading
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from stream_chat import StreamChat
from stream_chat.base.exceptions import StreamAPIException

from conftest import ROOT, bots_binary, serving_is_refused, wait_for

API_KEY = "run-key"
API_SECRET = "run-secret-of-at-least-thirty-two-bytes"


def write_config(folder: Path) -> Path:
    config = folder / "bots.yaml"
    config.write_text(f"""
server:
  api_key: {API_KEY}
  api_secret: ${{RUN_TEST_SECRET:-{API_SECRET}}}
embedded:
  port: 0
  data: {folder}/data
  health_check_interval: 1s
metrics:
  port: 0
bots:
  - name: workout
    kind: workout
    user: workout-bot
    channels: [messaging:general]
    database: {folder}/workouts.sqlite
  - name: moderator
    kind: moderation
    user: moderator
    channels: [messaging:general]
    policy:
      allowed_mime_types: [image/*, application/pdf, text/csv]
      blocked_file_extensions: [.exe]
      sniff_content: true
      action: delete_and_notify
    trusted_users: [workout-bot, archive-bot]  # as in the repository's bots.yaml
  - name: archive
    kind: archive
    user: archive-bot
    channels: [messaging:general]
    folder: {folder}/archive
""")
    return config


class BotsRun:
    """One `bots run` process (or `run` of another executable of the tool, `binary`); stopped
    (SIGTERM, then SIGKILL) when the test ends."""

    def __init__(self, config: Path, env=None, args=(), binary=None):
        self.process = subprocess.Popen(
            [binary or bots_binary(), "run", "--config", str(config), "--log-level", "warning", *args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=config.parent, env=env)
        self.output = []
        self.base_url = None
        self.metrics_url = None
        deadline = time.time() + 60
        while time.time() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            self.output.append(line)
            match = re.search(r"Dev server: (http://127\.0\.0\.1:\d+)", line)
            if match:
                self.base_url = match.group(1)
            match = re.search(r"Metrics: (http://127\.0\.0\.1:\d+/metrics)", line)
            if match:
                self.metrics_url = match.group(1)
            if "Ctrl-C stops everything" in line:
                return
        self.kill()
        pytest.fail("bots run did not get ready:\n" + "".join(self.output))

    def terminate(self, timeout=30) -> int:
        self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout=timeout)
        finally:
            self.kill()
        self.output.extend(self.process.stdout.readlines())
        self.process.stdout.close()
        return code

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def bots(tmp_path):
    run = BotsRun(write_config(tmp_path))
    yield run
    run.kill()


def alice_in(run, channel_id="general"):
    """An SDK client of the run's dev server, and the channel with alice (Alice) a member of it."""
    client = StreamChat(API_KEY, API_SECRET, base_url=run.base_url + "/", timeout=10.0)
    client.upsert_user({"id": "alice", "name": "Alice"})
    channel = client.channel("messaging", channel_id)
    channel.add_members(["alice"])
    return client, channel


def bot_messages(channel, bot_id, after_id=None):
    messages = channel.query(messages={"limit": 100})["messages"]
    if after_id is not None:
        ids = [message["id"] for message in messages]
        messages = messages[ids.index(after_id) + 1:] if after_id in ids else []
    return [message for message in messages if message["user"]["id"] == bot_id]


class ChatSession:
    """`bots chat` as `user` against the run's server, talked to line by line; killed when the
    test leaves it still running. Its output is read on a thread, so waiting for a line that
    never comes fails after `timeout` seconds instead of hanging the test run."""

    def __init__(self, run, folder, user="dora", timeout=30):
        self.process = subprocess.Popen(
            [bots_binary(), "chat", "--config", str(folder / "bots.yaml"), "--server", run.base_url, "--user", user, "--linger", "1"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=folder)
        self.timeout = timeout
        self.lines = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def __enter__(self):
        return self

    def __exit__(self, *_):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def say(self, *lines):
        self.process.stdin.write("".join(line + "\n" for line in lines))
        self.process.stdin.flush()

    def read_until(self, marker):
        """The lines shown up to the first one containing `marker`, without their newlines."""
        seen = []
        deadline = time.time() + self.timeout
        while not seen or marker not in seen[-1]:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.time()))
            except queue.Empty:
                raise AssertionError(f"no line with {marker!r} within {self.timeout} s; shown:\n" + "".join(seen))
            assert line is not None, "bots chat ended first; shown:\n" + "".join(seen)
            seen.append(line)
        return [line.rstrip("\n") for line in seen]

    def quit(self):
        """Ends the session with :quit; its remaining output and its errors."""
        self.say(":quit")
        self.process.stdin.close()
        err = self.process.stderr.read()
        self.process.wait(timeout=30)
        self.reader.join(timeout=30)
        rest = []
        while (line := self.lines.get(timeout=1)) is not None:
            rest.append(line)
        out = "".join(rest)
        assert self.process.returncode == 0, out + err
        return out, err


def test_the_three_bots_answer_the_official_sdk_and_stop_cleanly(bots, tmp_path):
    client, channel = alice_in(bots)

    # The workout bot answers a workout with this week's summary.
    workout = {"type": "workout", "workout-type": "run", "workout-distance-meters": 5000,
               "workout-duration-seconds": 1500, "workout-energy-cal": 400}
    started = time.monotonic()
    sent = channel.send_message({"text": "morning run", "attachments": [workout]}, "alice")["message"]
    replies = wait_for(lambda: bot_messages(channel, "workout-bot", sent["id"]))
    latency = time.monotonic() - started
    print(f"workout summary arrived {latency * 1000:.0f} ms after the post")
    summary = replies[0]["attachments"][0]
    assert summary["type"] == "workout-summary"
    assert (summary["count"], summary["distance_meters"], summary["energy_cal"]) == (1, 5000, 400)
    assert replies[0]["text"] == "This week: 1 workout, 5.0 km, 0h 25m, 400 kcal."

    # Fixing the workout's distance with an edit (through the SDK) updates the week's totals.
    client.update_message({"id": sent["id"], "text": "morning run, measured", "user_id": "alice",
                           "attachments": [{**workout, "workout-distance-meters": 6000}]})
    updated = wait_for(lambda: [m for m in bot_messages(channel, "workout-bot", sent["id"]) if m["text"].startswith("Workout updated.")])
    assert updated[0]["text"] == "Workout updated. This week: 1 workout, 6.0 km, 0h 25m, 400 kcal."
    assert updated[0]["attachments"][0]["distance_meters"] == 6000

    # A malformed workout is answered with the field that is wrong.
    bad = channel.send_message({"text": "", "attachments": [{**workout, "workout-energy-cal": "lots"}]}, "alice")["message"]
    complaint = wait_for(lambda: bot_messages(channel, "workout-bot", bad["id"]))
    assert 'field "workout-energy-cal" is wrong' in complaint[0]["text"]

    # An executable renamed .png is deleted (message and file) with a notice.
    program = tmp_path / "holiday.png"
    shutil.copy(shutil.which("true"), program)
    uploaded = channel.send_file(str(program), "holiday.png", {"id": "alice"}, content_type="image/png")["file"]
    disguised = channel.send_message(
        {"text": "my holiday", "attachments": [{"type": "file", "asset_url": uploaded, "title": "holiday.png",
                                                 "mime_type": "image/png", "file_size": program.stat().st_size}]},
        "alice")["message"]
    notice = wait_for(lambda: bot_messages(channel, "moderator"))
    assert notice[0]["text"].startswith("@Alice: holiday.png was removed because it is really an executable program")
    assert wait_for(lambda: _is_gone(client, disguised["id"]))

    # A real file lands in the archive folder, named by its SHA-256.
    report = tmp_path / "report.csv"
    report.write_text("date,km\n2026-11-01,5\n")
    link = channel.send_file(str(report), "report.csv", {"id": "alice"}, content_type="text/csv")["file"]
    report_attachment = {"type": "file", "asset_url": link, "title": "report.csv", "mime_type": "text/csv"}
    numbers = channel.send_message({"text": "numbers", "attachments": [report_attachment]}, "alice")["message"]
    archived = wait_for(lambda: list((tmp_path / "archive" / "files").rglob("*.csv")))
    assert archived[0].read_text() == "date,km\n2026-11-01,5\n"

    # What the moderator removed is not kept by the archive, even when the archive stored it
    # first: a channel's events reach a bot in order, so the deletion was handled before the CSV.
    manifest = tmp_path / "archive" / "manifest.jsonl"
    names = wait_for(lambda: manifest.exists() and [json.loads(line)["name"] for line in manifest.read_text().splitlines()])
    assert names == ["report.csv"]
    assert [path for path in (tmp_path / "archive" / "files").rglob("*") if path.is_file()] == archived

    # Edits through the SDK: a file an edit adds is archived (the kept one is not archived
    # again), and a file an edit takes out leaves the archive.
    def manifest_names():
        return [json.loads(line)["name"] for line in manifest.read_text().splitlines()]

    week = tmp_path / "week.csv"
    week.write_text("date,km\n2026-11-02,7\n")
    week_link = channel.send_file(str(week), "week.csv", {"id": "alice"}, content_type="text/csv")["file"]
    week_attachment = {"type": "file", "asset_url": week_link, "title": "week.csv", "mime_type": "text/csv"}
    client.update_message({"id": numbers["id"], "text": "numbers, and the week", "user_id": "alice",
                           "attachments": [report_attachment, week_attachment]})
    assert wait_for(lambda: len(manifest_names()) >= 2) and manifest_names() == ["report.csv", "week.csv"]
    client.update_message({"id": numbers["id"], "text": "just the week", "user_id": "alice",
                           "attachments": [week_attachment]})
    assert wait_for(lambda: manifest_names() == ["week.csv"])
    stored = [path for path in (tmp_path / "archive" / "files").rglob("*") if path.is_file()]
    assert [path.read_text() for path in stored] == ["date,km\n2026-11-02,7\n"]

    # SIGTERM: the bots drain, the server stops, exit 0.
    assert bots.terminate() == 0, "".join(bots.output)
    assert "Bots stopped." in "".join(bots.output)


def test_the_repository_bots_yaml_lets_the_bots_answer_with_files_past_the_moderator(tmp_path):
    # The shipped configuration, as `make run` uses it, on port 0 and with its relative folders
    # under tmp_path. Its moderator used to delete the archive bot's `/archive` answer (a JSON
    # manifest, a type its policy refuses from members).
    text = (ROOT / "bots.yaml").read_text()
    assert "port: 8787" in text and ".bots/" in text, "the test expects the shipped bots.yaml's port and folders"
    config = tmp_path / "bots.yaml"
    assert "port: 9464" in text, "the shipped bots.yaml serves metrics on 9464"
    config.write_text(text.replace("port: 8787", "port: 0").replace("port: 9464", "port: 0"))
    env = {key: value for key, value in os.environ.items() if key not in ("CHAT_API_KEY", "CHAT_API_SECRET")}
    run = BotsRun(config, env=env)
    try:
        client = StreamChat("dev-key", "a-dev-secret-of-at-least-32-bytes", base_url=run.base_url + "/", timeout=10.0)
        client.upsert_user({"id": "alice", "name": "Alice"})
        channel = client.channel("messaging", "general")
        channel.add_members(["alice"])
        # welcome: true greets her by name, and not the moderator and archive bots that join
        # general beside it as their connections come up.
        welcome = wait_for(lambda: bot_messages(channel, "workout-bot"))
        greeted = [m["text"].split("!")[0] for m in welcome if m["text"].startswith("Welcome, ")]
        assert greeted == ["Welcome, Alice"], welcome
        assert welcome[0]["text"].startswith("Welcome, Alice! Post a workout attachment"), welcome
        workout = {"type": "workout", "workout-type": "run", "workout-distance-meters": 5000,
                   "workout-duration-seconds": 1500, "workout-energy-cal": 400}
        sent = channel.send_message({"text": "run", "attachments": [workout]}, "alice")["message"]
        wait_for(lambda: bot_messages(channel, "workout-bot", sent["id"]))

        report = tmp_path / "report.csv"
        report.write_text("date,km\n2026-11-01,5\n")
        link = channel.send_file(str(report), "report.csv", {"id": "alice"}, content_type="text/csv")["file"]
        channel.send_message({"text": "numbers", "attachments": [{"type": "file", "asset_url": link, "title": "report.csv"}]}, "alice")
        manifest_request = channel.send_message({"text": "/archive"}, "alice")["message"]
        manifest = wait_for(lambda: bot_messages(channel, "archive-bot", manifest_request["id"]))[0]
        assert manifest["text"] == "1 file archived (1 distinct)."
        assert [a["title"] for a in manifest["attachments"]] == ["archive-manifest.json"]
        asked = channel.send_message({"text": "/workouts"}, "alice")["message"]
        export = wait_for(lambda: bot_messages(channel, "workout-bot", asked["id"]))[0]
        assert [a["title"] for a in export["attachments"]] == ["workouts-alice.csv", "weekly-distance-alice.svg"]
        # reuse_uploads: the same export again links the files uploaded for the first one.
        stored = lambda: sorted(path.name for path in (tmp_path / ".bots" / "data").rglob("*") if path.is_file())
        files_before = stored()
        again = channel.send_message({"text": "/workouts"}, "alice")["message"]
        second = wait_for(lambda: bot_messages(channel, "workout-bot", again["id"]))[0]
        links = lambda answer: [urlsplit(a.get("asset_url") or a["image_url"]).path for a in answer["attachments"]]
        assert links(second) == links(export) and len(set(links(export))) == 2
        assert stored() == files_before
        for attachment in second["attachments"]:
            with urllib.request.urlopen(attachment.get("asset_url") or attachment["image_url"]) as response:
                assert response.status == 200

        # The moderator still judges members, before anyone sees their files (check: before_send):
        # an executable renamed .png is refused, and Alice reads why in its place.
        program = tmp_path / "holiday.png"
        shutil.copy(shutil.which("true"), program)
        uploaded = channel.send_file(str(program), "holiday.png", {"id": "alice"}, content_type="image/png")["file"]
        disguised = channel.send_message(
            {"text": "my holiday", "attachments": [{"type": "file", "asset_url": uploaded, "title": "holiday.png",
                                                     "mime_type": "image/png"}]}, "alice")["message"]
        assert disguised["type"] == "error", disguised
        assert disguised["text"].startswith("holiday.png was not posted: it is really an executable program"), disguised["text"]
        assert _is_gone(client, disguised["id"]), "never stored"
        notices = wait_for(lambda: bot_messages(channel, "moderator"))

        # The bots' answers passed before they were sent (trusted_users), and stay.
        assert [notice["text"].split(" was not posted")[0] for notice in notices] == ["@Alice: holiday.png"]
        for answer in (export, manifest):
            kept = client.get_message(answer["id"])["message"]
            assert len(kept["attachments"]) == len(answer["attachments"]), kept

        # Her third such file bans her for ten minutes and deletes her messages (soft): the
        # workout bot forgets her workout and the archive bot her file.
        for number in (2, 3):
            # Each on its own upload: the moderator deleted the first from the CDN.
            again = channel.send_file(str(program), f"holiday-{number}.png", {"id": "alice"}, content_type="image/png")["file"]
            channel.send_message({"text": f"holiday {number}", "attachments": [
                {"type": "file", "asset_url": again, "title": f"holiday-{number}.png", "mime_type": "image/png"}]}, "alice")
        notices = wait_for(lambda: [n for n in bot_messages(channel, "moderator") if "banned" in n["text"]])
        assert notices[0]["text"].endswith(
            "That is 3 files against the policy, so Alice is banned from this channel for 10m, and their messages here were deleted."), notices
        assert client.get_message(sent["id"])["message"]["type"] == "deleted", "her workout went with the ban"
        workouts = tmp_path / ".bots" / "workout" / "workouts.sqlite"
        wait_for(lambda: sqlite3.connect(workouts).execute("SELECT COUNT(*) FROM workouts WHERE user_id = 'alice'").fetchone()[0] == 0)
        client.upsert_user({"id": "bob"})
        channel.add_members(["bob"])
        asked = channel.send_message({"text": "/archive"}, "bob")["message"]
        listed = wait_for(lambda: bot_messages(channel, "archive-bot", asked["id"]))[0]
        with urllib.request.urlopen(listed["attachments"][0]["asset_url"]) as response:
            entries = json.load(response)
        assert entries and {entry["user_id"] for entry in entries} == {"workout-bot"}, "her report.csv left the archive"
        assert run.terminate() == 0, "".join(run.output)
    finally:
        run.kill()


def test_bots_send_uploads_a_file_with_progress_and_shows_the_bots_answers(bots, tmp_path):
    # A CSV the moderator allows; the archive bot keeps it and counts it on /archive.
    report = tmp_path / "splits.csv"
    report.write_bytes(b"km,seconds\n" + b"".join(b"%d,%d\n" % (k, 290 + k % 7) for k in range(1, 20_000)))
    send = [bots_binary(), "send", "--config", str(tmp_path / "bots.yaml"), "--server", bots.base_url, "--user", "bea"]
    result = subprocess.run([*send, "--text", "my splits", "--file", str(report)],
                            capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    sent_id = re.search(r"Sent (\S+) to messaging:general as bea", result.stdout).group(1)
    # Not a terminal here: a line per quarter reached (how many depends on how curl reports a
    # fast upload), each once, in order, ending at 100%, and no carriage returns.
    lines = result.stderr.splitlines()
    quarters = ["Uploading: 0%", "Uploading: 25%", "Uploading: 50%", "Uploading: 75%", "Uploading: 100%"]
    assert lines and lines[-1] == "Uploading: 100%" and "\r" not in result.stderr, result.stderr
    assert lines == [line for line in quarters if line in lines], result.stderr

    client = StreamChat(API_KEY, API_SECRET, base_url=bots.base_url + "/", timeout=10.0)
    message = client.get_message(sent_id)["message"]
    attachment = message["attachments"][0]
    assert (message["text"], attachment["type"], attachment["title"]) == ("my splits", "file", "splits.csv")
    assert attachment["file_size"] == report.stat().st_size
    with urllib.request.urlopen(attachment["asset_url"], timeout=10) as response:
        assert response.read() == report.read_bytes()

    answer = wait_for(lambda: (lambda r: r if "1 file archived" in r.stdout else None)(
        subprocess.run([*send, "--text", "/archive"], capture_output=True, text=True, timeout=60, cwd=tmp_path)))
    assert answer.returncode == 0 and answer.stderr == ""
    assert "archive-bot: 1 file archived (1 distinct).  [file]" in answer.stdout, answer.stdout
    assert "moderator" not in answer.stdout

    exported = subprocess.run([*send, "--text", "/export 1h"], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert exported.returncode == 0 and exported.stderr == ""
    assert re.search(r"archive-bot: \d+ messages of the last 1h exported\.  \[file\]", exported.stdout), exported.stdout


def test_the_commands_the_welcome_prints_reach_a_server_on_port_0(bots, tmp_path):
    # bots.yaml says `port: 0`, so the printed commands must name the port the server got.
    # The tool names itself as it was started (here by its absolute path), so the lines run from anywhere.
    printed = [line.strip() for line in bots.output if line.strip().startswith(bots_binary() + " send")]
    assert [line.split(" --user alice ")[-1] for line in printed] == [
        """--attachment '{"type":"workout","workout-type":"run","workout-distance-meters":5000,"workout-duration-seconds":1500,"""
        """"workout-energy-cal":400}'""", "--text /workouts", "--text /goal",
        "--text '@workout-bot how far did I run this week, and am I on track for my goal?'", "--file some.pdf", "--text /archive",
        "--text /export"], "".join(bots.output)
    workouts = next(line for line in printed if line.endswith("--text /workouts"))
    assert f"--server {bots.base_url} " in workouts, workouts
    arguments = shlex.split(workouts)[1:]
    result = subprocess.run([bots_binary(), *arguments], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"Sent \S+ to messaging:general as alice", result.stdout), result.stdout


def _is_gone(client, message_id):
    try:
        client.get_message(message_id)
        return False
    except StreamAPIException as error:
        return error.status_code == 404


@pytest.mark.parametrize("text, expected", [
    ("server: {api_key: k, api_secret: short-secret-xx}\nbots: []\nbogus: 1\n", "bots.yaml:3:1: error: unknown key \"bogus\""),
    ("server:\n  api_key: k\n  api_secret: ${MISSING_SECRET_FOR_TEST}\nbots: []\n",
     "bots.yaml:3:15: error: environment variable MISSING_SECRET_FOR_TEST is not set"),
    ("server: {api_key: k, api_secret: a-secret-of-32-bytes-or-more-yes}\nbots:\n  - {name: a, kind: robot, channels: [messaging:x]}\n",
     "unknown bot kind \"robot\""),
    # Each bot skips its own user's messages, so both would skip each other's replies.
    ("server: {api_key: k, api_secret: a-secret-of-32-bytes-or-more-yes}\nbots:\n"
     "  - {name: w, kind: workout, user: helper, channels: [messaging:x]}\n"
     "  - {name: m, kind: moderation, user: helper, channels: [messaging:x]}\n",
     "bots.yaml:4:39: error: bots w and m both act as user \"helper\" in messaging:x"),
    # A bot's files go next to embedded.data; here that is under a file, so the folder cannot be made.
    ("server: {api_key: k, api_secret: a-secret-of-32-bytes-or-more-yes}\nembedded: {data: bots.yaml/data}\n"
     "bots:\n  - {name: w, kind: workout, channels: [messaging:x]}\n",
     ("bots.yaml:4:5: error: bot w could not be set up: ", "/bots.yaml/w: Not a directory [config.bad_value]")),
])
def test_a_bad_configuration_is_reported_with_its_location_and_nothing_starts(tmp_path, text, expected):
    config = tmp_path / "bots.yaml"
    config.write_text(text)
    result = subprocess.run([bots_binary(), "run", "--config", str(config)], capture_output=True, text=True, timeout=60,
                            cwd=tmp_path)
    assert result.returncode == 78, result.stdout + result.stderr
    for part in [expected] if isinstance(expected, str) else expected:
        assert part in result.stderr, result.stderr
    assert not (tmp_path / ".bots").exists(), "nothing was started or created"


@pytest.mark.parametrize("attachment, expected", [
    (r'{"type":"workout","workout-type":"r\qn"}', r"--attachment is not valid JSON: invalid escape sequence \'q' at byte 36"),
    ('{"type":"workout",', "--attachment is not valid JSON: input ends where an object key was expected at byte 18"),
    ("not json", "--attachment is not valid JSON: expected 'null', found 'not' at byte 1"),
    ('{"workout-type":"run"}', '--attachment must be a JSON object with a "type"'),
    ('[{"type":"workout"}]', '--attachment must be a JSON object with a "type"'),
])
def test_a_bad_attachment_for_bots_send_says_what_is_wrong_and_sends_nothing(tmp_path, attachment, expected):
    # Refused before any connection: no server runs here, and none is needed to be told why.
    result = subprocess.run([bots_binary(), "send", "--config", str(ROOT / "bots.yaml"), "--attachment", attachment],
                            capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert result.returncode == 64, result.stdout + result.stderr
    assert result.stderr.startswith("Error: " + expected), result.stderr
    # Pointed at the help of the command typed, not shown the root's usage ("bots <subcommand>").
    assert result.stderr.endswith("\n  See 'bots send --help' for more information.\n"), result.stderr
    assert "Usage:" not in result.stderr, result.stderr
    assert "Sent" not in result.stdout


@contextlib.contextmanager
def port_in_use():
    """A loopback port something listens on, for the duration of the block."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield holder.getsockname()[1]


def test_a_port_already_in_use_stops_bots_run_and_bots_serve_at_once_saying_what_to_do(tmp_path):
    # Both used to wait forever for a server that could not listen, deaf to Ctrl-C and SIGTERM.
    with port_in_use() as port:
        config = write_config(tmp_path)
        config.write_text(config.read_text().replace("port: 0", f"port: {port}", 1))  # embedded.port
        commands = {
            "run": [bots_binary(), "run", "--config", str(config)],
            "serve": [bots_binary(), "serve", "--port", str(port), "--data", str(tmp_path / "serve-data")],
        }
        for name, command in commands.items():
            started = time.monotonic()
            result = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=tmp_path)
            assert result.returncode == 1, name + ": " + result.stdout + result.stderr
            assert time.monotonic() - started < 30, name
            assert (f"[devserver.cannot_listen] cannot listen on 127.0.0.1:{port}: the port is already in use"
                    in result.stderr), name + ": " + result.stderr
            assert "embedded.port in bots.yaml, --port for bots serve" in result.stderr
            assert "Ctrl-C stops everything" not in result.stdout and "listening on" not in result.stdout


def scrape(url):
    """The samples of a Prometheus text page, as {(name, frozenset(labels)): value}, and its content type."""
    with urllib.request.urlopen(url, timeout=10) as response:
        content_type = response.headers["Content-Type"]
        text = response.read().decode()
    samples = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        match = re.fullmatch(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)', line)
        assert match, f"not a Prometheus sample: {line!r}"
        labels = frozenset(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', match.group(2) or ""))
        samples[(match.group(1), labels)] = float(match.group(3))
    return samples, content_type


def sample(samples, name, **labels):
    return samples.get((name, frozenset(labels.items())))


def test_bots_run_serves_what_the_bots_did_as_prometheus_metrics(bots):
    client, channel = alice_in(bots)
    assert bots.metrics_url, "bots run says where its metrics are:\n" + "".join(bots.output)
    samples, content_type = scrape(bots.metrics_url)
    assert content_type.startswith("text/plain; version=0.0.4")
    for user in ("workout-bot", "moderator", "archive-bot"):
        assert sample(samples, "chatbotkit_connected", user=user) == 1, user

    workout = {"type": "workout", "workout-type": "run", "workout-distance-meters": 5000,
               "workout-duration-seconds": 1500, "workout-energy-cal": 400}
    channel.send_message({"text": "run", "attachments": [workout]}, "alice")
    bad = channel.send_message({"text": "?", "attachments": [{**workout, "workout-energy-cal": "lots"}]}, "alice")["message"]
    wait_for(lambda: bot_messages(channel, "workout-bot", bad["id"]))

    def handled_both():  # a handler's time is recorded once it returns, after its reply
        samples = scrape(bots.metrics_url)[0]
        done = sample(samples, "chatbotkit_bot_handling_duration_seconds_count", bot="workout", trigger="message") or 0
        return samples if done >= 2 else None

    samples = wait_for(handled_both)
    assert sample(samples, "chatbotkit_bot_decoding_failures_total", bot="workout", type="workout") == 1
    # Every bot saw alice's two workouts; the moderator and the archive bot judge attachments too.
    for bot in ("workout", "moderator", "archive"):
        assert sample(samples, "chatbotkit_bot_attachments_total", bot=bot, type="workout") == 2, bot
    assert sample(samples, "chatbotkit_events_total", user="workout-bot", type="message.new") >= 2
    assert sample(samples, "chatbotkit_http_requests_total", operation="SendMessage", status="201") >= 2
    assert sample(samples, "chatbotkit_bot_handler_errors_total", bot="workout") is None

    assert bots.terminate() == 0, "".join(bots.output)


def test_a_metrics_port_already_in_use_stops_bots_run_saying_which_setting_to_change(tmp_path):
    with port_in_use() as port:
        config = write_config(tmp_path)
        config.write_text(config.read_text().replace("metrics:\n  port: 0", f"metrics:\n  port: {port}"))
        result = subprocess.run([bots_binary(), "run", "--config", str(config)], capture_output=True, text=True, timeout=60,
                                cwd=tmp_path)
        assert result.returncode == 1, result.stdout + result.stderr
        # The dev server's last log line can land inside the error as it is written (seen once
        # in CI: "…bots.yaml2026-… error bots.devserver: … Already closed\n, 0 for any …").
        said = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} \w+ bots\.[^\n]*\n", "", result.stderr)
        assert (f"[metrics.cannot_listen] cannot serve metrics on 127.0.0.1:{port}: the port is already in use" in said), \
            result.stderr
        assert "metrics.port in bots.yaml, 0 for any free port" in said, result.stderr
        assert "Ctrl-C stops everything" not in result.stdout


def test_a_data_folder_that_cannot_be_made_stops_the_server_with_the_path_and_the_reason(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the data folder should go")
    config = tmp_path / "bots.yaml"
    config.write_text(f"server: {{api_key: k, api_secret: a-secret-of-32-bytes-or-more-yes}}\n"
                      f"embedded: {{data: {blocker}/data, port: 0}}\nbots: []\n")
    for command in ([bots_binary(), "run", "--config", str(config)],
                    [bots_binary(), "serve", "--port", "0", "--data", f"{blocker}/data"]):
        result = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=tmp_path)
        assert result.returncode == 1, result.stdout + result.stderr
        assert (f"[devserver.data_folder] cannot use the data folder {blocker}/data: Not a directory; "
                "choose a folder this user can write (embedded.data in bots.yaml, --data for bots serve)") in result.stderr, \
            result.stderr
        assert blocker.read_text() == "a file where the data folder should go"


def test_bots_send_and_events_without_a_server_say_how_to_start_one(tmp_path):
    with socket.socket() as probe:  # a loopback port nothing listens on once closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = write_config(tmp_path)
    config.write_text(config.read_text().replace("port: 0", f"port: {port}", 1))  # embedded.port
    cases = [
        (["send", "--config", str(config), "--text", "hi"],
         f"no chat server answers at http://127.0.0.1:{port}; start it with `bots run`"),
        (["events", "--config", str(config)], f"no chat server answers at http://127.0.0.1:{port}; start it with `bots run`"),
        (["chat", "--config", str(config)], f"no chat server answers at http://127.0.0.1:{port}; start it with `bots run`"),
        (["send", "--config", str(config), "--server", f"http://127.0.0.1:{port}", "--text", "hi"],
         f"no chat server answers at http://127.0.0.1:{port}; check --server"),
    ]
    for arguments, expected in cases:
        result = subprocess.run([bots_binary(), *arguments], capture_output=True, text=True, timeout=60, cwd=tmp_path)
        assert result.returncode == 1, result.stdout + result.stderr
        assert f"[bots.server_unreachable] {expected}" in result.stderr, result.stderr


@pytest.mark.parametrize("command", ["send", "events", "chat"])
@pytest.mark.parametrize("server", ["localhost:8787", "127.0.0.1:8787", "ftp://example.com", "http://"])
def test_a_server_option_that_is_not_an_http_url_is_refused_not_ignored(tmp_path, command, server):
    # It used to fall back to the configuration's server without a word.
    result = subprocess.run([bots_binary(), command, "--config", str(ROOT / "bots.yaml"), "--server", server],
                            capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert result.returncode == 64, result.stdout + result.stderr
    assert (f"The value '{server}' is invalid for '--server <server>': use an http(s) URL with a host, "
            "such as http://127.0.0.1:8787") in result.stderr, result.stderr


def test_check_validates_the_repository_configuration():
    result = subprocess.run([bots_binary(), "run", "--config", str(ROOT / "bots.yaml"), "--check"], capture_output=True,
                            text=True, timeout=60, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert "3 bots, configuration is valid" in result.stdout


def test_bots_serve_takes_its_settings_from_bots_yaml_and_its_flags_override_them(tmp_path):
    config = tmp_path / "bots.yaml"
    # Port 1 would need root: the server only starts if --port overrides it.
    config.write_text("server: {api_key: yaml-key, api_secret: a-yaml-secret-of-at-least-32-bytes}\n"
                      "embedded: {port: 1, data: yaml-data, link_lifetime: 5m,\n"
                      "           uploads: {size_limit: 1KB, blocked_file_extensions: [.exe]}}\n"
                      "bots:\n  - {name: w, kind: workout, channels: [messaging:x]}\n")
    process = subprocess.Popen([bots_binary(), "serve", "--config", str(config), "--port", "0", "--log-level", "warning"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path)
    try:
        lines = [process.stdout.readline() for _ in range(3)]
        match = re.search(r"listening on (http://127\.0\.0\.1:\d+)", lines[0])
        assert match, "".join(lines)
        assert lines[1].strip() == "API key: yaml-key"
        assert lines[2].startswith(f"Data: {tmp_path}/yaml-data  Link lifetime: 5m"), lines[2]
        assert (tmp_path / "yaml-data").is_dir()
        client = StreamChat("yaml-key", "a-yaml-secret-of-at-least-32-bytes", base_url=match.group(1) + "/", timeout=10.0)
        upload_config = client.get_app_settings()["app"]["file_upload_config"]
        assert upload_config["size_limit"] == 1024 and upload_config["blocked_file_extensions"] == [".exe"]
        client.upsert_user({"id": "alice"})
        channel = client.channel("messaging", "x")
        channel.create("alice")
        (tmp_path / "setup.exe").write_bytes(b"MZ" + b"\0" * 100)
        (tmp_path / "big.txt").write_text("x" * 2000)
        for name, expected in [("setup.exe", "File extension .exe is blocked"),
                               ("big.txt", "file is larger than the upload limit of 1 KB")]:
            with pytest.raises(StreamAPIException) as refused:
                channel.send_file(str(tmp_path / name), name, {"id": "alice"}, content_type="application/octet-stream")
            assert expected in str(refused.value), str(refused.value)
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0
        process.stdout.close()
    # A bad file stops it before anything starts, located as for bots run (exit code 78).
    serving_is_refused(tmp_path, "embedded: {prot: 0}\nbots: []\n", ':2:12: error: unknown key "prot" in embedded (did you mean "port"?)')


def post_file(channel, path: Path, content_type: str):
    link = channel.send_file(str(path), path.name, {"id": "alice"}, content_type=content_type)["file"]
    attachment = {"type": "file", "asset_url": link, "title": path.name, "mime_type": content_type,
                  "file_size": path.stat().st_size}
    return channel.send_message({"text": path.name, "attachments": [attachment]}, "alice")["message"]


def reloads(run, outcome):
    return sample(scrape(run.metrics_url)[0], "chatbotkit_config_reloads_total", outcome=outcome) or 0


def test_a_changed_bots_yaml_applies_on_sighup_without_reconnecting_and_one_with_a_mistake_changes_nothing(tmp_path):
    config = write_config(tmp_path)
    original = config.read_text()
    run = BotsRun(config)
    try:
        client, channel = alice_in(run)
        report = tmp_path / "before.csv"
        report.write_text("date,km\n2026-11-01,5\n")

        # The policy allows CSV files: the moderator lets one through.
        kept = post_file(channel, report, "text/csv")
        wait_for(lambda: sample(scrape(run.metrics_url)[0], "chatbotkit_bot_handling_duration_seconds_count",
                                bot="moderator", trigger="message") == 1)
        assert not _is_gone(client, kept["id"])

        # CSV taken out of the allowed types; SIGHUP applies it to the running moderator.
        config.write_text(original.replace("application/pdf, text/csv]", "application/pdf]"))
        run.process.send_signal(signal.SIGHUP)
        wait_for(lambda: reloads(run, "applied") == 1)
        report = report.rename(tmp_path / "after.csv")
        removed = post_file(channel, report, "text/csv")
        notice = wait_for(lambda: bot_messages(channel, "moderator"))
        assert notice[0]["text"].startswith("@Alice: after.csv was removed"), notice[0]["text"]
        assert wait_for(lambda: _is_gone(client, removed["id"]))
        samples = scrape(run.metrics_url)[0]
        assert sample(samples, "chatbotkit_connections_total", user="moderator") == 1, "reconfigured, not reconnected"
        assert sample(samples, "chatbotkit_connected", user="moderator") == 1

        # A file with a mistake (CSV allowed again, and a key no policy has) changes nothing.
        config.write_text(original.replace("sniff_content: true", "sniff_content: true\n      colour: red"))
        run.process.send_signal(signal.SIGHUP)
        wait_for(lambda: reloads(run, "rejected") == 1)
        report = report.rename(tmp_path / "again.csv")
        again = post_file(channel, report, "text/csv")
        assert wait_for(lambda: _is_gone(client, again["id"])), "the policy of the last good file still holds"
        assert reloads(run, "applied") == 1
    finally:
        code = run.terminate()
    output = "".join(run.output)
    assert code == 0, output
    line = original.replace("sniff_content: true", "sniff_content: true\n      colour: red").splitlines().index("      colour: red") + 1
    assert f'{config}:{line}:7: error: unknown key "colour" in bots[1].policy' in output, output
    assert "nothing was changed (reload on SIGHUP)" in output


def test_with_watch_a_saved_bots_yaml_starts_new_bots_and_stops_removed_ones(tmp_path):
    config = write_config(tmp_path)
    original = config.read_text()
    run = BotsRun(config, args=["--watch"])
    try:
        assert "or just save it: --watch is on" in "".join(run.output)
        # No signal: saving the file is enough. The archive bot goes; a second workout bot comes.
        archive_entry = original[original.index("  - name: archive"):]
        config.write_text(original.replace(archive_entry, f"""  - name: coach
    kind: workout
    user: coach-bot
    channels: [messaging:gym]
    database: {tmp_path}/coach.sqlite
"""))
        wait_for(lambda: reloads(run, "applied") + reloads(run, "failed") + reloads(run, "rejected") >= 1, timeout=30)
        assert reloads(run, "applied") == 1, scrape(run.metrics_url)[0]
        samples = scrape(run.metrics_url)[0]
        assert sample(samples, "chatbotkit_connected", user="coach-bot") == 1
        assert sample(samples, "chatbotkit_connected", user="archive-bot") == 0
        for user in ("workout-bot", "moderator"):
            assert sample(samples, "chatbotkit_connections_total", user=user) == 1, user

        _, gym = alice_in(run, "gym")
        workout = {"type": "workout", "workout-type": "run", "workout-distance-meters": 3000,
                   "workout-duration-seconds": 900, "workout-energy-cal": 200}
        sent = gym.send_message({"text": "intervals", "attachments": [workout]}, "alice")["message"]
        replies = wait_for(lambda: bot_messages(gym, "coach-bot", sent["id"]))
        assert replies[0]["text"] == "This week: 1 workout, 3.0 km, 0h 15m, 200 kcal."
        assert (tmp_path / "coach.sqlite").exists()

        # Saved and signalled at once: read once, not again by the watcher.
        config.write_text(config.read_text().replace("channels: [messaging:gym]", "channels: [messaging:gym, messaging:track]"))
        run.process.send_signal(signal.SIGHUP)
        wait_for(lambda: reloads(run, "applied") == 2)
        time.sleep(1.5)
        assert (reloads(run, "applied"), reloads(run, "unchanged")) == (2, 0)
    finally:
        code = run.terminate()
    assert code == 0, "".join(run.output)


def test_a_sender_over_the_workout_bots_sender_limit_is_told_once_and_the_rest_skipped(tmp_path):
    config = write_config(tmp_path)
    config.write_text(config.read_text().replace(
        "    database: ", "    sender_limit: {messages: 2/min, exempt: [coach]}\n    database: ", 1))
    run = BotsRun(config)
    try:
        assert "Bot workout (workout) as workout-bot in messaging:general, at most 2/min from each sender\n" in run.output, run.output
        client, channel = alice_in(run)
        client.upsert_user({"id": "coach", "name": "Coach"})
        channel.add_members(["coach"])
        workout = {"type": "workout", "workout-type": "run", "workout-distance-meters": 1000,
                   "workout-duration-seconds": 300, "workout-energy-cal": 80}
        first = channel.send_message({"text": "1", "attachments": [workout]}, "alice")["message"]
        for text in ("2", "3", "4"):
            channel.send_message({"text": text, "attachments": [workout]}, "alice")
        for text in ("c1", "c2", "c3"):
            channel.send_message({"text": text, "attachments": [workout]}, "coach")
        # alice: two summaries and one notice (for her third workout; her fourth is skipped
        # silently); coach is exempt: three summaries.
        answers = wait_for(lambda: (lambda found: found if len(found) >= 6 else None)(
            bot_messages(channel, "workout-bot", first["id"])))
        notices = [m["text"] for m in answers if m["text"].startswith("alice, ")]
        assert len(notices) == 1, answers
        assert re.fullmatch(r"alice, I handle at most 2 messages a minute from each sender, so I skipped this one\. "
                            r"Try again in (29|30)s\.", notices[0]), notices
        summaries = [m["attachments"][0] for m in answers if m["attachments"]]
        assert [s["user_id"] for s in summaries].count("alice") == 2
        assert [s["user_id"] for s in summaries].count("coach") == 3
        assert max(s["count"] for s in summaries if s["user_id"] == "alice") == 2, "alice's skipped workouts were not logged"
        samples = wait_for(lambda: (lambda s: s if sample(s, "chatbotkit_bot_sender_limited_total", bot="workout") == 2 else None)(
            scrape(run.metrics_url)[0]))
        assert sample(samples, "chatbotkit_bot_sender_limited_total", bot="moderator") is None
        time.sleep(0.5)
        assert len(bot_messages(channel, "workout-bot", first["id"])) == 6, "nothing more came"
        assert run.terminate() == 0, "".join(run.output)
    finally:
        run.kill()


def test_bots_react_lets_a_moderator_remove_a_message_and_shows_the_notice(tmp_path):
    config = write_config(tmp_path)
    config.write_text(config.read_text().replace(
        "    trusted_users: [workout-bot, archive-bot]", "    trusted_users: [workout-bot, archive-bot]\n    moderators: [mia]", 1))
    run = BotsRun(config)
    try:
        tool = [bots_binary(), "--config", str(config), "--server", run.base_url]
        send = subprocess.run([tool[0], "send", *tool[1:], "--user", "bea", "--text", "spam spam", "--wait-for-replies", "0"],
                              capture_output=True, text=True, timeout=60, cwd=tmp_path)
        assert send.returncode == 0, send.stdout + send.stderr
        sent_id = re.search(r"Sent (\S+) to messaging:general as bea", send.stdout).group(1)
        # bea's own remove reaction, and then mia's like, do nothing; mia's remove removes it.
        for user, reaction in (("bea", "remove"), ("mia", "like")):
            done = subprocess.run([tool[0], "react", *tool[1:], sent_id, reaction, "--user", user, "--wait-for-replies", "1"],
                                  capture_output=True, text=True, timeout=60, cwd=tmp_path)
            assert done.returncode == 0, done.stdout + done.stderr
            assert done.stdout == f"Reacted {reaction} to {sent_id} in messaging:general as {user}\n", done.stdout
        removed = subprocess.run([tool[0], "react", *tool[1:], sent_id, "remove", "--user", "mia"],
                                 capture_output=True, text=True, timeout=60, cwd=tmp_path)
        assert removed.returncode == 0, removed.stdout + removed.stderr
        assert "moderator: @Bea: a message of yours was removed by Mia, a moderator.\n" in removed.stdout, removed.stdout
        client = StreamChat(API_KEY, API_SECRET, base_url=run.base_url + "/", timeout=10.0)
        with pytest.raises(StreamAPIException):
            client.get_message(sent_id)
        # A message that is not there is said so; a reaction type of 31 characters is refused.
        missing = subprocess.run([tool[0], "react", *tool[1:], "no-such-message", "like"],
                                 capture_output=True, text=True, timeout=60, cwd=tmp_path)
        assert missing.returncode == 64, missing.stdout + missing.stderr
        assert "no message no-such-message on the server; `send` prints the id of what it posts" in missing.stderr
        long = subprocess.run([tool[0], "react", *tool[1:], sent_id, "x" * 31], capture_output=True, text=True, timeout=60, cwd=tmp_path)
        assert long.returncode == 64 and "a reaction type has 1 to 30 characters" in long.stderr, long.stdout + long.stderr
        assert run.terminate() == 0, "".join(run.output)
    finally:
        run.kill()


def test_the_workout_bots_goal_conversation_goes_on_after_a_restart(tmp_path):
    config = write_config(tmp_path)
    run = BotsRun(config)
    try:
        client, channel = alice_in(run)

        def answer_to(text):
            sent = channel.send_message({"text": text}, "alice")["message"]
            found = wait_for(lambda: bot_messages(channel, "workout-bot", sent["id"]) or None)
            return found[-1]

        assert answer_to("/goal")["text"] == "How far do you want to go each week? Say 30km. (/cancel to stop)"
        assert answer_to("25km")["text"] == "Which workouts count toward 25.0 km a week? Say run, ride, swim, walk… or any."
        # The turn saves the next step once it has answered.
        def saved_steps():
            file = tmp_path / "conversations" / "workout.json"
            saved = json.loads(file.read_text()) if file.exists() else {"conversations": []}
            return [(c["key"]["user"], c["name"], c["state"]) for c in saved["conversations"]]
        assert wait_for(lambda: saved_steps() if "type" in str(saved_steps()) else None) == [
            ("alice", "GoalSetup", {"type": {"meters": 25000}})]
        assert run.terminate() == 0, "".join(run.output)
    finally:
        run.kill()

    # Started again, the bot still waits for the answer to its second question.
    run = BotsRun(config)
    try:
        client, channel = alice_in(run)
        workout = {"type": "workout", "workout-type": "ride", "workout-distance-meters": 10000,
                   "workout-duration-seconds": 1800, "workout-energy-cal": 300}
        sent = channel.send_message({"text": "any", "attachments": []}, "alice")["message"]
        done = wait_for(lambda: bot_messages(channel, "workout-bot", sent["id"]) or None)[-1]
        assert done["text"] == "Goal set. This week: 0 workouts, 0.0 km, 0h 00m, 0 kcal. Goal: 0.0 of 25.0 km (0%).", done
        ride = channel.send_message({"text": "", "attachments": [workout]}, "alice")["message"]
        summary = wait_for(lambda: bot_messages(channel, "workout-bot", ride["id"]) or None)[-1]
        assert summary["text"].endswith("Goal: 10.0 of 25.0 km (40%)."), summary
        assert summary["attachments"][0]["goal_distance_meters"] == 25000
        assert summary["attachments"][0]["goal_progress_meters"] == 10000
        samples = scrape(run.metrics_url)[0]
        assert sample(samples, "chatbotkit_bot_conversation_events_total", bot="workout", conversation="GoalSetup", event="ended") == 1
        assert saved_steps() == [], "an ended conversation leaves the file"
        assert run.terminate() == 0, "".join(run.output)
    finally:
        run.kill()


def test_bots_chat_shows_the_welcome_a_new_member_gets(tmp_path):
    config = write_config(tmp_path)
    config.write_text(config.read_text().replace("    database: ", "    welcome: true\n    database: ", 1))
    run = BotsRun(config)
    try:
        with ChatSession(run, tmp_path, user="erin") as chat:
            lines = chat.read_until("workout-bot: ")
            chat.quit()
        assert lines[0].startswith("Talking in messaging:general as erin."), lines
        assert lines[-1].startswith("workout-bot: Welcome, Erin! Post a workout attachment"), lines
        assert run.terminate() == 0, "".join(run.output)
    finally:
        run.kill()


def test_bots_send_shows_the_welcome_a_new_member_gets_and_an_old_one_does_not_see_again(tmp_path):
    config = write_config(tmp_path)
    config.write_text(config.read_text().replace("    database: ", "    welcome: true\n    database: ", 1))
    run = BotsRun(config)
    try:
        send = [bots_binary(), "send", "--config", str(config), "--server", run.base_url, "--user", "finn", "--text", "hi"]
        first = subprocess.run(send, capture_output=True, text=True, timeout=60, cwd=tmp_path)
        assert first.returncode == 0, first.stdout + first.stderr
        assert "workout-bot: Welcome, Finn! Post a workout attachment" in first.stdout, first.stdout
        again = subprocess.run(send, capture_output=True, text=True, timeout=60, cwd=tmp_path)
        assert again.returncode == 0 and "Welcome" not in again.stdout, again.stdout
        assert run.terminate() == 0, "".join(run.output)
    finally:
        run.kill()


def test_bots_chat_holds_a_conversation_line_by_line_and_says_what_each_bad_line_gets(bots, tmp_path):
    client, channel = alice_in(bots)
    lines = ["/goal", "lots", ":attach {bad", ":file nothere.png", ":bogus", ":press log", ":file", "30km",
             "::run", "run", ":quit", "after the end"]
    done = subprocess.run(
        [bots_binary(), "chat", "--config", str(tmp_path / "bots.yaml"), "--server", bots.base_url, "--user", "dora", "--linger", "3"],
        input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("Talking in messaging:general as dora. A line is a message; :help lists the rest.\n")
    said = [line for line in done.stdout.splitlines() if line.startswith("workout-bot: ")]
    assert said == [
        "workout-bot: How far do you want to go each week? Say 30km. (/cancel to stop)",
        "workout-bot: \"lots\" is not a distance. How far each week? Say 30km.",
        "workout-bot: Which workouts count toward 30.0 km a week? Say run, ride, swim, walk… or any.",
        "workout-bot: \":run\" is not a kind of workout. Say run, ride, swim, walk… or any.",
        "workout-bot: Goal set. This week: 0 workouts, 0.0 km, 0h 00m, 0 kcal. Goal: 0.0 of 30.0 km of run (0%).  [workout-summary]",
    ], done.stdout
    # Each bad line gets its error, and nothing is sent for it; the session goes on.
    assert done.stderr.splitlines() == [
        "error: :attach is not valid JSON: expected a string key, found 'b' at byte 1 (nothing was sent)",
        f"error: [attachment.file_not_found] no file at {tmp_path}/nothere.png (nothing was sent)",
        "error: :bogus is not a command here; :help lists them (start with :: to post a text that begins with a colon)",
        "error: :press: no answer only you see has buttons yet",
        "error: :file needs a path, such as :file holiday.png",
    ], done.stderr
    posted = [m["text"] for m in channel.query(messages={"limit": 100})["messages"] if m["user"]["id"] == "dora"]
    assert posted == ["/goal", "lots", "30km", ":run", "run"], "what came after :quit was not sent"
    refused = subprocess.run([bots_binary(), "chat", "--config", str(tmp_path / "bots.yaml"), "--server", bots.base_url, "--linger=-1"],
                             input="", capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert refused.returncode == 64 and "--linger must be 0 to 600 seconds, found -1.0" in refused.stderr, refused.stderr


def test_bots_chat_edits_and_deletes_the_users_last_message_and_the_bots_follow(bots, tmp_path):
    client, channel = alice_in(bots)
    with ChatSession(bots, tmp_path) as chat:
        chat.say(":edit too soon", ":delete", ':attach {"type":"workout","workout-type":"run","workout-distance-meters":5000}')
        assert chat.read_until("workout-bot: ")[-1].startswith("workout-bot: This week: 1 workout, 5.0 km")
        chat.say(":edit morning run", ":delete now", ":delete")
        shown = chat.read_until("Workout removed.")
        out, err = chat.quit()
    assert shown == [
        "(you edited your message: morning run  [workout])",
        "(your message \"morning run\" was deleted)",
        "workout-bot: Workout removed. This week: 0 workouts, 0.0 km, 0h 00m, 0 kcal.  [workout-summary]",
    ], shown
    assert err.splitlines() == [
        "error: :edit: you have posted nothing in this session yet",
        "error: :delete: you have posted nothing in this session yet",
        "error: :delete takes nothing after it: it deletes your last message",
    ], err
    mine = [m for m in channel.query(messages={"limit": 100})["messages"] if m["user"]["id"] == "dora"]
    assert [m["type"] for m in mine] == ["deleted"], mine


def test_the_workout_bots_scheduled_report_reaches_the_official_sdk(tmp_path):
    config = write_config(tmp_path)
    config.write_text(config.read_text().replace("    database: ", "    report: every 2s\n    database: ", 1))
    run = BotsRun(config)
    try:
        assert "Bot workout (workout) as workout-bot in messaging:general, report every 2s\n" in run.output, run.output
        client, channel = alice_in(run)
        workout = {"type": "workout", "workout-type": "run", "workout-distance-meters": 8000,
                   "workout-duration-seconds": 2400, "workout-energy-cal": 500}
        sent = channel.send_message({"text": "", "attachments": [workout]}, "alice")["message"]

        def report():
            found = [m for m in bot_messages(channel, "workout-bot", sent["id"]) if m["text"].startswith("The last 7 days")]
            return found[-1] if found else None
        posted = wait_for(report, timeout=15)
        assert posted["text"] == "The last 7 days: alice 8.0 km (1 workout).", posted
        attachment = posted["attachments"][0]
        assert attachment["type"] == "workout-report"
        assert attachment["entries"] == [{"user_id": "alice", "distance_meters": 8000, "count": 1}]

        def pinned_report():
            pins = channel.query()["pinned_messages"]
            return pins[0] if pins and pins[0]["text"].startswith("The last 7 days") else None
        pin = wait_for(pinned_report, timeout=15)
        assert pin["pinned_by"]["id"] == "workout-bot" and pin["pin_expires"], pin
        assert len(channel.query()["pinned_messages"]) <= 1, "each report's pin ends when the next is due"
        samples = scrape(run.metrics_url)[0]
        assert sample(samples, "chatbotkit_bot_deliveries_total", bot="workout", trigger="schedule") >= 1
        assert run.terminate() == 0, "".join(run.output)
    finally:
        run.kill()
    # A schedule that cannot be read stops the run before anything starts, where it is written.
    config.write_text(config.read_text().replace("report: every 2s", "report: every fortnight"))
    refused = subprocess.run([bots_binary(), "run", "--config", str(config), "--check"], capture_output=True, text=True, timeout=60)
    assert refused.returncode == 78, refused.stdout + refused.stderr
    assert re.search(r"bots\.yaml:\d+:\d+: error: bots\[0\]\.report must be a schedule such as mon 09:00, daily 18:30 or every 1h; "
                     r"\"every fortnight\" is not a schedule: after every comes a duration of at least a second, such as every 30m",
                     refused.stderr), refused.stderr


def test_bots_chat_reacts_to_the_last_message_shown(bots, tmp_path):
    client, channel = alice_in(bots)
    with ChatSession(bots, tmp_path) as chat:
        chat.say(":react like", "/workouts")
        chat.read_until("workout-bot: ")
        rows = "distance_meters,duration_seconds\n" + "5000,1800\n" * 5000
        (tmp_path / "runs.csv").write_text(rows)
        chat.say(":react", ":react like", ":file runs.csv")
        out, err = chat.quit()
    errors = [line for line in err.splitlines() if not line.startswith("Uploading: ")]
    assert errors == [
        "error: :react: no message by anyone else is shown yet",
        "error: :react needs one reaction type of at most 30 characters, such as :react like",
    ], err
    # Not a terminal: the upload's progress as a line per quarter, ending at 100%.
    uploading = [line for line in err.splitlines() if line.startswith("Uploading: ")]
    assert uploading and uploading[-1] == "Uploading: 100%" and "\r" not in err, err
    assert uploading == [f"Uploading: {q}%" for q in (0, 25, 50, 75, 100) if f"Uploading: {q}%" in uploading], err
    posted = [m for m in channel.query(messages={"limit": 100})["messages"] if m["user"]["id"] == "dora" and m["attachments"]][-1]
    assert posted["attachments"][0]["title"] == "runs.csv" and posted["attachments"][0]["file_size"] == len(rows), posted
    answer = "No workouts recorded for you yet. Post a workout attachment first."
    assert f"(you reacted like to workout-bot's \"{answer}\")" in out, out
    reacted = [m for m in channel.query(messages={"limit": 100})["messages"] if m["text"] == answer][-1]
    assert reacted["reaction_counts"] == {"like": 1}, reacted


def test_bots_chat_sets_a_reminder_of_the_last_message_shown_and_shows_it_when_due(bots, tmp_path):
    client, channel = alice_in(bots)
    with ChatSession(bots, tmp_path) as chat:
        chat.say(":remind 1s", "/workouts")
        answer = chat.read_until("workout-bot: ")[-1].split("workout-bot: ", 1)[1]
        chat.say(":remind soon", ":remind 30s")
        assert chat.read_until("(you will be reminded of ")[-1] == f'(you will be reminded of workout-bot\'s "{answer}" in 30s)'
        # Set again, the one reminder moves.
        chat.say(":remind 1s")
        chat.read_until("(you will be reminded of ")
        assert chat.read_until("(reminder: ")[-1] == f'(reminder: workout-bot\'s "{answer}")'
        time.sleep(1)
        out, err = chat.quit()
    assert err.splitlines() == [
        "error: :remind: no message by anyone else is shown yet",
        "error: :remind needs when, such as :remind 10m or :remind 2h (nothing was set)",
    ], err
    assert "(reminder: " not in out, "once"
    reminders = client.query_reminders("dora")["reminders"]
    assert [r["message"]["text"] for r in reminders] == [answer], reminders


def test_bots_chat_shows_a_poll_votes_with_vote_and_shows_it_closing(bots, tmp_path):
    client, channel = alice_in(bots)
    with ChatSession(bots, tmp_path) as chat:
        chat.say(":vote 1", "/plan Sat Sun")
        assert chat.read_until("workout-bot: ")[-1].endswith("workout-bot: Group run: which day?  [poll: 1 Sat, 2 Sun]")
        chat.say(":vote 3", ":vote sun")
        assert chat.read_until("(you voted ")[-1] == '(you voted Sun on "Group run: which day?")'
        plan = next(m for m in channel.query(messages={"limit": 100})["messages"] if m.get("poll"))
        assert plan["poll"]["vote_counts_by_option"] == {plan["poll"]["options"][1]["id"]: 1}
        client.patch(f"polls/{plan['poll']['id']}", data={"set": {"is_closed": True}})
        assert chat.read_until("(poll ")[-1] == '(poll "Group run: which day?" closed: Sun leads)'
        assert chat.read_until("workout-bot (in a thread): ")[-1].endswith("Group run on Sun (1 vote).")
        out, err = chat.quit()
    assert err.splitlines() == [
        "error: :vote: no poll is shown yet",
        'error: :vote needs an option of "Group run: which day?": 1 Sat, 2 Sun (nothing was sent)',
    ], err


def test_bots_chat_shares_a_live_location_the_workout_bot_logs_as_a_ride(bots, tmp_path):
    client, channel = alice_in(bots)
    with ChatSession(bots, tmp_path) as chat:
        assert chat.read_until("Talking in")[0].startswith("Talking in messaging:general as dora.")
        chat.say(":move 1 2", ":share north", ":share 52.52 13.405 30m ride")
        shared = chat.read_until("(you shared ")[-1]
        assert re.fullmatch(r"\(you shared location 52\.52000, 13\.40500, live until \d\d:\d\d:\d\d UTC\)", shared), shared
        tracking = chat.read_until("workout-bot (in a thread): ")[-1]
        assert re.search(r"Tracking your ride until \d\d:\d\d UTC\. Stop sharing your location when you finish", tracking), tracking
        chat.say(":move 52.529 13.405")
        assert chat.read_until("(your location moved")[-1] == "(your location moved to 52.52900, 13.40500)"
        chat.say(":stop")
        assert chat.read_until("(you stopped")[-1] == "(you stopped sharing your location)"
        logged = chat.read_until("workout-bot: Logged")[-1]
        assert re.search(r"Logged your ride: 1\.0 km in 0m \d\ds\. This week: 1 workout, 1\.0 km, .*\[workout-summary\]$", logged), logged

        # Another member's live location, as the chat shows it.
        end_at = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(minutes=5)).isoformat()
        message = channel.send_message({"text": "walk", "shared_location": {"latitude": 1, "longitude": 2, "end_at": end_at}}, "alice")["message"]
        assert re.fullmatch(r"alice: walk  \[location 1\.00000, 2\.00000, live until \d\d:\d\d:\d\d UTC\]", chat.read_until("alice: walk")[-1])
        client.update_user_location("alice", message["id"], {"latitude": 1.5, "longitude": 2})
        assert chat.read_until("(alice's location")[-1] == "(alice's location moved to 1.50000, 2.00000)"
        client.update_user_location("alice", message["id"], {"end_at": datetime.datetime.now(datetime.timezone.utc).isoformat()})
        assert chat.read_until("(alice stopped")[-1] == "(alice stopped sharing their location)"
        out, err = chat.quit()
    assert err.splitlines() == [
        "error: :move: you share no live location in this session yet",
        "error: :share needs where, in degrees, such as :share 52.52 13.405 30m (nothing was sent)",
    ], err


def test_bots_chat_shows_pins_deletions_undeletions_members_joining_and_leaving_and_users_deactivated(bots, tmp_path):
    client, channel = alice_in(bots)
    client.upsert_user({"id": "bob"})
    channel.add_members(["bob"])
    with ChatSession(bots, tmp_path) as chat:
        assert chat.read_until("Talking in")[0].startswith("Talking in messaging:general as dora."), "watching before the others act"
        channel.send_message({"id": "rules", "text": "house rules"}, "alice")
        client.pin_message("rules", "bob")
        client.update_message_partial("rules", {"set": {"text": "house rules v2"}}, "alice")
        client.unpin_message("rules", "bob")
        client.delete_message("rules")
        client.undelete_message("rules", "bob")
        client.upsert_user({"id": "cem"})
        channel.add_members(["cem"])
        channel.remove_members(["bob"])
        channel.send_message({"id": "spam", "text": "buy now"}, "cem")
        client.deactivate_user("cem", mark_messages_deleted=True)
        client.reactivate_user("cem")
        lines = chat.read_until("(cem was reactivated)")
        chat.quit()
    assert lines == [
        "alice: house rules",
        "(bob pinned alice's \"house rules\")",
        "alice edited: house rules v2",
        "(alice's \"house rules v2\" was unpinned)",
        "(alice's message \"house rules v2\" was deleted)",
        "(alice's message \"house rules v2\" was undeleted by bob)",
        "(cem joined)",
        "(bob left)",
        "cem: buy now",
        "(all of cem's messages here were deleted)",
        "(cem was deactivated)",
        "(cem was reactivated)",
    ], lines
