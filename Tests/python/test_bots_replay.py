"""`bots events --json` records what people do in a channel; `bots replay` does it again on
another server, where the bots meet it as the first ones did. Both sides are real `bots run`
processes with the example bots; the official Python SDK plays the people."""

import json
import subprocess
import time

from stream_chat import StreamChat

from conftest import bots_binary, wait_for
from test_bots_run import API_KEY, API_SECRET, BotsRun, alice_in, bot_messages, write_config


def sdk(run):
    return StreamChat(API_KEY, API_SECRET, base_url=run.base_url + "/", timeout=10.0)


def record(run, path):
    """Starts `bots events --json` on `run`'s server, writing to `path`; returns the process."""
    process = subprocess.Popen(
        [bots_binary(), "events", "--config", str(run.config), "--server", run.base_url, "--json"],
        stdout=open(path, "w"), stderr=subprocess.PIPE, text=True)
    line = process.stderr.readline()
    assert "Listening to messaging:general" in line, line
    return process


def replay(config, *args):
    return subprocess.run([bots_binary(), "replay", "--config", str(config), *args],
                          capture_output=True, text=True, timeout=60)


WORKOUT = {"type": "workout", "workout-type": "run", "workout-distance-meters": 5000,
           "workout-duration-seconds": 1500, "workout-energy-cal": 400}


def test_a_recorded_conversation_replays_on_a_fresh_server_and_the_bots_answer_it_again(tmp_path):
    (tmp_path / "first").mkdir()
    (tmp_path / "second").mkdir()
    first = BotsRun(write_config(tmp_path / "first"))
    try:
        first.config = tmp_path / "first" / "bots.yaml"
        client, channel = alice_in(first)
        client.upsert_user({"id": "bob", "name": "Bob", "team": "blue"})
        channel.add_members(["bob"])
        capture = tmp_path / "capture.jsonl"
        recorder = record(first, capture)
        first.recorder = recorder

        # What the people do: a workout with a custom field, a reaction, a thread reply, an
        # edit of the workout, and a message sent and deleted. The workout bot answers.
        run = channel.send_message({"id": "run-1", "text": "morning run", "mood": "great", "attachments": [WORKOUT]}, "alice")["message"]
        wait_for(lambda: bot_messages(channel, "workout-bot", run["id"]))
        channel.send_reaction("run-1", {"type": "like"}, "bob")
        channel.send_message({"id": "reply-1", "text": "well done", "parent_id": "run-1"}, "bob")
        edited = dict(WORKOUT, **{"workout-distance-meters": 6000})
        client.update_message({"id": "run-1", "text": "morning run, 6 km", "mood": "great", "attachments": [edited], "user_id": "alice"})
        wait_for(lambda: any("updated" in m["text"] for m in bot_messages(channel, "workout-bot")))
        channel.send_message({"id": "oops-1", "text": "wrong channel"}, "alice")
        client.delete_message("oops-1")
        wait_for(lambda: any('"message.deleted"' in line for line in capture.read_text().splitlines()))
        # SIGTERM, not SIGINT: a shell running a job in the background (as CI may) starts it
        # with SIGINT ignored, and the recorder would not stop.
        recorder.terminate()
        recorder.wait(timeout=10)
        first_answers = bot_messages(channel, "workout-bot")
        assert len(first_answers) == 2
    finally:
        if getattr(first, "recorder", None) and first.recorder.poll() is None:
            first.recorder.kill()
            first.recorder.wait()
        first.kill()

    lines = capture.read_text().splitlines()
    assert lines and all(json.loads(line)["type"] for line in lines), "the capture is events only, one per line"

    second = BotsRun(write_config(tmp_path / "second"))
    try:
        config = tmp_path / "second" / "bots.yaml"
        dry = replay(config, str(capture), "--server", second.base_url, "--id-suffix", "again", "--dry-run")
        assert dry.returncode == 0, dry.stderr
        assert "messages by workout-bot" in dry.stdout, dry.stdout
        second_client = sdk(second)
        assert second_client.query_channels({"id": "general"})["channels"][0]["messages"] == [], "a dry run sends nothing"

        done = replay(config, str(capture), "--server", second.base_url, "--id-suffix", "again")
        assert done.returncode == 0, done.stdout + done.stderr
        out = done.stdout
        assert "alice sent run-1-again in messaging:general: morning run [workout]" in out, out
        assert "bob reacted like to run-1-again" in out and "bob sent reply-1-again (a thread reply)" in out, out
        assert "alice edited run-1-again" in out and "the server deleted oops-1-again" in out, out
        assert "skipped: messages by workout-bot (2)" in out, out
        assert "Replayed 6 calls." in out, out

        replayed = second_client.get_message("run-1-again")["message"]
        assert replayed["user"]["id"] == "alice" and replayed["text"] == "morning run, 6 km" and replayed["mood"] == "great"
        assert replayed["attachments"][0]["workout-distance-meters"] == 6000
        assert replayed["reaction_counts"] == {"like": 1} and replayed["reply_count"] == 1
        assert second_client.get_message("reply-1-again")["message"]["parent_id"] == "run-1-again"
        assert second_client.get_message("oops-1-again")["message"]["type"] == "deleted"
        assert second_client.query_users({"id": "bob"})["users"][0]["team"] == "blue"

        # The bots met it as the first ones did: the same two answers, made again, not copied.
        general = second_client.channel("messaging", "general")
        answers = wait_for(lambda: (lambda found: found if len(found) == 2 and "updated" in found[1]["text"] else None)(
            bot_messages(general, "workout-bot")))
        assert [a["text"].split(":")[0] for a in answers] == [a["text"].split(":")[0] for a in first_answers]

        # Again, with another suffix: nothing collides with the first replay.
        assert replay(config, str(capture), "--server", second.base_url, "--id-suffix", "third").returncode == 0
        assert second_client.get_message("run-1-third")["message"]["text"] == "morning run, 6 km"
        assert second.terminate() == 0
    finally:
        second.kill()


def test_a_capture_with_a_line_that_is_not_an_event_is_refused_whole_and_nothing_is_sent(tmp_path):
    run = BotsRun(write_config(tmp_path))
    try:
        good = json.dumps({"type": "message.new", "cid": "messaging:general",
                           "message": {"id": "m-1", "text": "hi", "user": {"id": "carol"}}})
        for text, reason in [
            (good + "\n{\"type\": \"message.new\", \n", "capture.jsonl:2: not JSON"),
            (good + "\n[1, 2]\n", "capture.jsonl:2: not an event: an event is a JSON object with a \"type\""),
            ("\n\n" + json.dumps({"text": "no type"}) + "\n", "capture.jsonl:3: not an event"),
        ]:
            capture = tmp_path / "capture.jsonl"
            capture.write_text(text)
            refused = replay(tmp_path / "bots.yaml", str(capture), "--server", run.base_url)
            assert refused.returncode == 65, refused.stdout + refused.stderr
            assert f"[chat.invalid_capture] {capture.parent}/{reason}" in refused.stderr, refused.stderr
            assert "nothing was replayed" in refused.stderr
        assert sdk(run).query_users({"id": "carol"})["users"] == [], "not even carol was made"
        missing = replay(tmp_path / "bots.yaml", str(tmp_path / "nowhere.jsonl"), "--server", run.base_url)
        assert missing.returncode == 65 and f"cannot read {tmp_path}/nowhere.jsonl" in missing.stderr
        both = replay(tmp_path / "bots.yaml", str(capture), "--keep-ids", "--id-suffix", "x")
        assert both.returncode == 64 and "give --keep-ids or --id-suffix, not both" in both.stderr
    finally:
        run.kill()
