"""What the outage tests share: a workout bot (`bots run`) against a separate dev server
(`bots serve`) whose process is killed and started again on the same port and data, and the
count of replies by their deterministic ids (BotContext.replyId)."""

import hashlib
import json
import subprocess
import time
from pathlib import Path

from conftest import API_KEY, API_SECRET, DevServerProcess, bots_binary, wait_for
from test_bots_run import BotsRun

WORKOUT = {"type": "workout", "workout-type": "run", "workout-duration-seconds": 1500, "workout-energy-cal": 400}


def reply_id(message_id: str, bot: str = "workout", index: int = 0) -> str:
    """The id of reply `index` of `bot` to `message_id`, as BotContext.replyId derives it."""
    digest = bytearray(hashlib.sha256(f"{bot}\n{message_id}\n{index}".encode()).digest()[:16])
    digest[6] = (digest[6] & 0x0F) | 0x50
    digest[8] = (digest[8] & 0x3F) | 0x80
    text = digest.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def reply_to(channel, message: dict):
    """The bot's first reply to `message` (by its deterministic id), or None while there is none."""
    try:
        return channel.client.get_message(reply_id(message["id"]))["message"]
    except Exception as error:
        if "does not exist" in str(error):
            return None
        raise


def write_config(folder: Path, server: DevServerProcess, channels, extra: str = "", webhook: bool = False) -> Path:
    """The workout bot on `server`; with `webhook`, taking its events from a webhook server of
    its own (port 0, pointed at by the app's settings at each start) instead of a WebSocket."""
    config = folder / "bots.yaml"
    if webhook:
        extra += "\n    events: webhook"
    config.write_text(f"""
server:
  url: {server.base_url}
  api_key: {API_KEY}
  api_secret: {API_SECRET}
{"webhook: {port: 0}" if webhook else ""}
bots:
  - name: workout
    kind: workout
    user: workout-bot
    channels: [{", ".join("messaging:" + name for name in channels)}]
    database: {folder}/workouts.sqlite
    drain_deadline: 3s{extra}
""")
    return config


def start_bot(config: Path) -> BotsRun:
    """`bots run` logging at notice, where an outage and its end are said."""
    return BotsRun(config, args=("--log-level", "notice"))


def channels_with_users(server: DevServerProcess, layout: dict) -> dict:
    """`layout`: channel name -> its users; returns channel name -> SDK channel."""
    client = server.client()
    made = {}
    for name, users in layout.items():
        client.upsert_users([{"id": user} for user in users])
        channel = client.channel("messaging", name)
        channel.create(users[0])
        channel.add_members(users)
        made[name] = channel
    return made


def post_workout(channel, user: str, meters: int, attempts: int = 200) -> dict:
    """Posts a workout as `user` with its own id, trying again while the server is down; a post
    that got through before a crash is found by its id, so none is posted twice."""
    message_id = f"w-{user}-{meters}-{time.time_ns()}"
    body = {"id": message_id, "text": f"{meters} m", "attachments": [{**WORKOUT, "workout-distance-meters": meters}]}
    for _ in range(attempts):
        try:
            return channel.send_message(body, user)["message"]
        except Exception as error:  # the server is down or restarting, or the post got through already
            if "already exists" in str(error):
                return channel.client.get_message(message_id)["message"]
            time.sleep(0.1)
    raise AssertionError(f"could not post {message_id}")


def bot_messages(channel, after_id: str, limit: int = 300) -> list:
    """The bot's messages after `after_id` (its greeting on joining comes before)."""
    messages = channel.query(messages={"limit": limit})["messages"]
    ids = [m["id"] for m in messages]
    return [m for m in messages[ids.index(after_id) + 1:] if m["user"]["id"] == "workout-bot"]


def check_answered_once_in_order(channel, posted: list, timeout: float = 60) -> list:
    """Every posted workout has its reply (by its deterministic id), the bot wrote nothing else,
    and the replies came in the order of the workouts. Returns the bot's messages."""
    expected = {reply_id(message["id"]): message for message in posted}
    first = posted[0]["id"]
    try:
        wait_for(lambda: set(expected) <= {m["id"] for m in bot_messages(channel, first)}, timeout=timeout, interval=0.5)
    except AssertionError:
        missing = set(expected) - {m["id"] for m in bot_messages(channel, first)}
        raise AssertionError(f"no reply to {sorted(expected[id]['id'] for id in missing)} of {len(posted)} workouts") from None
    time.sleep(1)  # a doubled reply would show by now
    replies = bot_messages(channel, first)
    ids = [m["id"] for m in replies]
    assert len(ids) == len(set(ids)) == len(posted), f"{len(replies)} bot messages for {len(posted)} workouts"
    assert set(ids) == set(expected), "a reply is not one of the expected ids"
    assert ids == [reply_id(message["id"]) for message in posted], "replies in the order of the workouts"
    return replies


def dead_letters(config: Path, *args) -> subprocess.CompletedProcess:
    return subprocess.run([bots_binary(), "dead-letters", *args, "--config", str(config)], capture_output=True, text=True,
                          timeout=60, cwd=config.parent)


def dead_letter_file(folder: Path) -> list:
    file = folder / ".bots" / "dead-letters" / "workout.jsonl"
    return [json.loads(line) for line in file.read_text().splitlines() if line.strip()] if file.exists() else []


def weekly_total(reply: dict) -> str:
    """`This week: 3 workouts, ...` of a summary reply."""
    return reply["text"].split(",")[0]
