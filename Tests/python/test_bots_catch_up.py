"""Catching up after a restart, end to end: `bots run` against a separate `bots serve`, killed
with SIGKILL (a crash) or stopped with SIGTERM, and started again; the official Python SDK
posts meanwhile."""

import json
import subprocess
import time
from pathlib import Path

import pytest

from conftest import API_KEY, API_SECRET, DevServerProcess, bots_binary, wait_for
from test_bots_run import BotsRun, bot_messages

WORKOUT = {"type": "workout", "workout-type": "run", "workout-distance-meters": 5000,
           "workout-duration-seconds": 1500, "workout-energy-cal": 400}


def write_config(folder: Path, server: DevServerProcess, catch_up: str | None = None, reuse_uploads: bool = False) -> Path:
    config = folder / "bots.yaml"
    extra = f"\n    catch_up: {catch_up}" if catch_up else ""
    extra += "\n    reuse_uploads: true" if reuse_uploads else ""
    config.write_text(f"""
server:
  url: {server.base_url}
  api_key: {API_KEY}
  api_secret: {API_SECRET}
bots:
  - name: workout
    kind: workout
    user: workout-bot
    channels: [messaging:gym]
    database: {folder}/workouts.sqlite{extra}
""")
    return config


@pytest.fixture
def server(tmp_path):
    process = DevServerProcess(tmp_path / "data").start()
    yield process
    process.stop()


def gym(server):
    client = server.client()
    client.upsert_user({"id": "alice", "name": "Alice"})
    channel = client.channel("messaging", "gym")
    channel.create("alice")
    channel.add_members(["alice"])
    return channel


def post(channel, text, distance=5000):
    return channel.send_message({"text": text, "attachments": [{**WORKOUT, "workout-distance-meters": distance}]}, "alice")["message"]


def answers_between(channel, after_id, before_id=None):
    """The workout bot's messages after `after_id` (and before `before_id`)."""
    messages = channel.query(messages={"limit": 100})["messages"]
    ids = [message["id"] for message in messages]
    end = ids.index(before_id) if before_id else len(messages)
    return [m for m in messages[ids.index(after_id) + 1:end] if m["user"]["id"] == "workout-bot"]


def checkpoint(folder: Path) -> dict:
    """The workout bot's checkpoint; empty until it is first saved."""
    file = folder / ".bots" / "checkpoints" / "workout.json"
    return json.loads(file.read_text()) if file.exists() else {}


@pytest.mark.parametrize("stop", ["SIGKILL", "SIGTERM"])
def test_a_workout_posted_while_the_bot_was_down_is_answered_when_it_starts_again_and_none_twice(server, tmp_path, stop):
    channel = gym(server)
    config = write_config(tmp_path, server)
    run = BotsRun(config)
    try:
        first = post(channel, "monday")
        assert wait_for(lambda: answers_between(channel, first["id"]))
        # The checkpoint (in .bots/checkpoints beside the folder the run started in) has it.
        assert wait_for(lambda: first["id"] in checkpoint(tmp_path).get("recently_handled", []), timeout=5)
    finally:
        if stop == "SIGKILL":
            run.kill()
        else:
            assert run.terminate() == 0
    saved = checkpoint(tmp_path)
    assert saved["bot"] == "workout" and saved["version"] == 1

    missed = post(channel, "tuesday, while the bot is down", distance=7000)
    run = BotsRun(config)
    try:
        answer = wait_for(lambda: answers_between(channel, missed["id"]))
        assert answer[0]["text"] == "This week: 2 workouts, 12.0 km, 0h 50m, 800 kcal."
        live = post(channel, "wednesday", distance=1000)
        assert wait_for(lambda: answers_between(channel, live["id"]))
        time.sleep(0.5)
        assert len(answers_between(channel, first["id"], missed["id"])) == 1, "monday is not answered again"
        assert len(answers_between(channel, missed["id"], live["id"])) == 1
        assert answers_between(channel, live["id"])[0]["text"] == "This week: 3 workouts, 13.0 km, 1h 15m, 1200 kcal."
    finally:
        assert run.terminate() == 0
    assert checkpoint(tmp_path)["handled_through"] >= live["created_at"][:19]


def test_after_a_crash_the_same_export_links_the_files_uploaded_before_it(server, tmp_path):
    channel = gym(server)
    config = write_config(tmp_path, server, reuse_uploads=True)
    links = lambda answer: [a.get("asset_url") or a["image_url"] for a in answer["attachments"]]
    stored = lambda: sorted(path.name for path in (tmp_path / "data").rglob("*") if path.is_file() and "files" in path.parts)
    run = BotsRun(config)
    try:
        monday = post(channel, "monday")
        assert wait_for(lambda: answers_between(channel, monday["id"]))
        asked = channel.send_message({"text": "/workouts"}, "alice")["message"]
        export = wait_for(lambda: answers_between(channel, asked["id"]))[0]
        assert [a["title"] for a in export["attachments"]] == ["workouts-alice.csv", "weekly-distance-alice.svg"]
        record = tmp_path / ".bots" / "uploads" / "workout.json"
        assert sorted(entry["file_name"] for entry in json.loads(record.read_text())["uploads"]) == [
            "weekly-distance-alice.svg", "workouts-alice.csv"]
    finally:
        run.kill()
    files_before = stored()
    assert len(files_before) == 2, files_before

    run = BotsRun(config)
    try:
        again = channel.send_message({"text": "/workouts"}, "alice")["message"]
        second = wait_for(lambda: answers_between(channel, again["id"]))[0]
        assert [link.split("?")[0] for link in links(second)] == [link.split("?")[0] for link in links(export)]
        assert stored() == files_before, "nothing was uploaded again"
    finally:
        assert run.terminate() == 0


def test_with_catch_up_off_what_was_posted_while_the_bot_was_down_is_left_alone(server, tmp_path):
    channel = gym(server)
    config = write_config(tmp_path, server, catch_up="off")
    run = BotsRun(config)
    first = post(channel, "monday")
    assert wait_for(lambda: answers_between(channel, first["id"]))
    assert run.terminate() == 0
    assert not (tmp_path / ".bots" / "checkpoints").exists(), "no checkpoint is kept"

    missed = post(channel, "tuesday, while the bot is down")
    run = BotsRun(config)
    try:
        live = post(channel, "wednesday")
        answer = wait_for(lambda: answers_between(channel, live["id"]))
        assert answer[0]["text"].startswith("This week: 2 workouts"), "tuesday was never handled"
        assert answers_between(channel, missed["id"], live["id"]) == []
    finally:
        assert run.terminate() == 0


def test_a_catch_up_that_is_not_a_duration_is_located_and_nothing_starts(server, tmp_path):
    config = write_config(tmp_path, server, catch_up="sometimes")
    result = subprocess.run([bots_binary(), "run", "--config", str(config)], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert result.returncode == 78
    assert f"{config}:12:15: error: bots[0].catch_up must be a duration such as 30m or 1d, or off, found \"sometimes\"" in result.stderr
