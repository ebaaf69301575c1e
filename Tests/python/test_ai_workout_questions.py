"""The workout bot's questions end to end: `bots run` against `bots serve`, a real model server
(llama-cpp-python with a tiny random model), the official Python SDK asking, and an independent
WebSocket client watching. The words are nonsense: these check the protocol."""

import asyncio
import os
import json
import time
from pathlib import Path

import requests
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from conftest import API_KEY, API_SECRET, DevServerProcess, user_headers, wait_for
from test_bots_catch_up import gym, server  # noqa: F401 (the dev server fixture and alice's gym channel)
from test_bots_run import BotsRun
from test_websocket import connect_url

QUESTION = "@workout-bot how far did I run this week, and am I on track for my goal?"


def write_config(folder: Path, server: DevServerProcess, llm: str = "") -> Path:
    config = folder / "bots.yaml"
    config.write_text(f"""
server:
  url: {server.base_url}
  api_key: {API_KEY}
  api_secret: {API_SECRET}
{llm}
bots:
  - name: workout
    kind: workout
    user: workout-bot
    channels: [messaging:gym]
    database: {folder}/workouts.sqlite
""")
    return config


def bot_replies(channel):
    return [m for m in channel.query(messages={"limit": 100})["messages"] if m["user"]["id"] == "workout-bot"]


def test_without_a_model_the_bot_says_how_to_configure_one_at_start_and_when_asked(server, tmp_path):
    bots = BotsRun(write_config(tmp_path, server, "llm:\n  url: ${LLM_URL:-}\n  model: llama3.2"), env={k: v for k, v in os.environ.items() if k != "LLM_URL"})
    try:
        channel = gym(server)
        printed = "".join(bots.output)
        assert "answers no questions" in printed and "11434" in printed, printed
        channel.send_message({"text": QUESTION}, "alice")
        reply = wait_for(lambda: bot_replies(channel), timeout=30)[0]
        assert "no language model is configured" in reply["text"]
        assert "http://127.0.0.1:11434/v1" in reply["text"] and "OPENAI_API_KEY" in reply["text"]
    finally:
        bots.terminate()


def test_an_llm_section_with_a_wrong_key_is_located_and_nothing_starts(server, tmp_path):
    config = write_config(tmp_path, server, "llm:\n  url: http://127.0.0.1:11434/v1\n  modle: llama3.2")
    from conftest import bots_binary
    import subprocess
    result = subprocess.run([bots_binary(), "run", "--config", str(config), "--check"], capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    line = next(number for number, text in enumerate(config.read_text().splitlines(), 1) if "modle:" in text)
    assert f"bots.yaml:{line}:3" in result.stdout + result.stderr, result.stdout + result.stderr
    assert "modle" in result.stdout + result.stderr


def watch_events(server, client, connection_events, stop):
    """Collects the events of alice's watching connection until `stop` is set."""
    async def scenario():
        async with connect(connect_url(server, client.create_token("alice"), "alice")) as socket:
            first = json.loads(await socket.recv())
            response = await asyncio.to_thread(
                requests.post, server.url(f"/channels/messaging/gym/query?api_key={API_KEY}&connection_id={first['connection_id']}"),
                json={"watch": True, "state": True}, headers=user_headers(client, "alice"))
            assert response.status_code == 201, response.text
            connection_events.append({"type": "watching"})
            while not stop.is_set():
                try:
                    event = json.loads(await asyncio.wait_for(socket.recv(), 0.2))
                except asyncio.TimeoutError:
                    continue
                except ConnectionClosed:
                    return  # the dev server stopped at the end of the test
                event["_at"] = time.monotonic()
                connection_events.append(event)
    asyncio.run(scenario())


def test_a_question_is_answered_through_the_model_streamed_on_streams_ai_protocol(server, tmp_path, model_server):
    import threading
    llm = f"llm:\n  url: {model_server.url}\n  model: tiny\n  max_tokens: 80"
    bots = BotsRun(write_config(tmp_path, server, llm))
    events, stop = [], threading.Event()
    watcher = threading.Thread(target=watch_events, args=(server, server.client(), events, stop))
    try:
        channel = gym(server)
        watcher.start()
        wait_for(lambda: events, timeout=10)
        channel.send_message({"text": QUESTION}, "alice")
        wait_for(lambda: any(e["type"] == "ai_indicator.clear" for e in events), timeout=120, what=bots.output)
        reply = bot_replies(channel)[0]
        assert reply["ai_generated"] is True and reply["generating"] is False and reply["text"]
        mine = [e for e in events if e.get("message_id") == reply["id"] or e.get("message", {}).get("id") == reply["id"]]
        assert mine[0]["type"] == "message.new" and mine[0]["message"]["text"] == ""
        states = [e.get("ai_state", "clear") for e in mine if e["type"].startswith("ai_indicator")]
        assert states[0] == "AI_STATE_THINKING" and states[-1] == "clear", states
        assert "AI_STATE_GENERATING" in states or "AI_STATE_EXTERNAL_SOURCES" in states, states
    finally:
        stop.set()
        if watcher.is_alive():
            watcher.join(timeout=10)
        bots.terminate()


def test_a_bot_killed_mid_stream_leaves_one_complete_reply_after_its_restart(server, tmp_path, model_server):
    long_answers = f"llm:\n  url: {model_server.url}\n  model: tiny\n  max_tokens: 3000"
    config = write_config(tmp_path, server, long_answers)
    bots = BotsRun(config)
    channel = gym(server)
    channel.send_message({"text": QUESTION}, "alice")
    wait_for(lambda: any(r["text"] and r.get("generating") for r in bot_replies(channel)), timeout=120, what=bots.output)
    bots.process.kill()
    bots.process.wait()
    half = bot_replies(channel)
    assert len(half) == 1 and half[0]["generating"] is True

    write_config(tmp_path, server, f"llm:\n  url: {model_server.url}\n  model: tiny\n  max_tokens: 40")
    again = BotsRun(config)
    try:
        wait_for(lambda: bot_replies(channel) and bot_replies(channel)[0]["generating"] is False, timeout=120)
        replies = bot_replies(channel)
        assert len(replies) == 1, [r["id"] for r in replies]
        assert replies[0]["id"] == half[0]["id"]
        assert replies[0]["text"] and "ai_stopped" not in replies[0]
    finally:
        again.terminate()
