"""Streamed AI replies, ours beside Stream's sample approach, in one run on one dev server and
one model server:

- ours: `bots run` with the workout bot answering through the model (BotContext.streamReply:
  partial updates coalesced to 3 a second);
- peer: what Stream's sample agents do, with the official Python SDK: a partial update of the
  text for every chunk the model streams (the Node sample's Anthropic handler does it on
  chunks 1, 3, 5, 7 and every 20th; its OpenAI handler every 200 ms; "per chunk" is the
  simplest of them and the one the issue names).

Both ask the same model server (llama-cpp-python, the tiny random model, `max_tokens` each)
through a byte-for-byte TCP proxy that timestamps the first and last text chunk of every
answer. A user's raw WebSocket timestamps the first text and the final text of the reply.

Prints, per side: first token -> first text on the watcher's socket (median, ms), last token ->
final text on the socket (median, ms), and partial updates sent per 1,000 tokens.

Usage: ai_stream.py BIN_DIR [QUESTIONS=5] [MAX_TOKENS=400]
"""

import asyncio
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import requests
from stream_chat import StreamChat
from websockets.asyncio.client import connect

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests" / "python"))
from model_server import ModelServer  # noqa: E402

API_KEY, API_SECRET = "bench-key", "bench-secret-of-at-least-thirty-two-bytes"


class Proxy:
    """Forwards TCP to the model server and timestamps the text chunks of each answer."""

    def __init__(self, target_port):
        self.target_port = target_port
        self.answers = []  # [{"first": t, "last": t, "chunks": n}]
        self.port = None

    async def handle(self, reader, writer):
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", self.target_port)

        async def pipe(source, sink, watch):
            buffer = b""
            try:
                while data := await source.read(65536):
                    if watch:
                        buffer += data
                        *lines, buffer = buffer.split(b"\n")
                        for line in lines:
                            self.observe(line)
                    sink.write(data)
                    await sink.drain()
            except (ConnectionError, asyncio.CancelledError):
                pass
            finally:
                sink.close()

        await asyncio.gather(pipe(reader, upstream_writer, False), pipe(upstream_reader, writer, True))

    def observe(self, line):
        if line.startswith(b"HTTP/1.1 200"):
            self.answers.append({"first": None, "last": None, "chunks": 0})
            return
        if not line.startswith(b"data: {") or not self.answers:
            return
        try:
            chunk = json.loads(line[6:])
        except ValueError:
            return
        choices = chunk.get("choices") or []
        if choices and (choices[0].get("delta") or {}).get("content"):
            now = time.monotonic()
            answer = self.answers[-1]
            answer["first"] = answer["first"] or now
            answer["last"] = now
            answer["chunks"] += 1

    def start(self):
        ready = threading.Event()

        def run():
            async def main():
                server = await asyncio.start_server(self.handle, "127.0.0.1", 0)
                self.port = server.sockets[0].getsockname()[1]
                ready.set()
                async with server:
                    await server.serve_forever()
            asyncio.run(main())
        threading.Thread(target=run, daemon=True).start()
        ready.wait(10)
        return self


class Watcher:
    """A user's raw WebSocket on the channel: when each message first had text, and when it was final."""

    def __init__(self, base_url, client, user, channel):
        self.first_text, self.final, self.updates = {}, {}, {}
        self.ready = threading.Event()
        url = base_url.replace("http://", "ws://") + "/connect?" + requests.compat.urlencode({
            "api_key": API_KEY, "authorization": client.create_token(user), "stream-auth-type": "jwt",
            "json": json.dumps({"user_id": user, "server_determines_connection_id": True})})

        async def main():
            async with connect(url, max_size=None) as socket:
                first = json.loads(await socket.recv())
                headers = {"Authorization": client.create_token(user), "stream-auth-type": "jwt"}
                requests.post(f"{base_url}/channels/messaging/{channel}/query?api_key={API_KEY}&connection_id={first['connection_id']}",
                              json={"watch": True}, headers=headers, timeout=10)
                self.ready.set()
                async for frame in socket:
                    now = time.monotonic()
                    event = json.loads(frame)
                    message = event.get("message") or {}
                    if event["type"] != "message.updated" or not message.get("ai_generated"):
                        continue
                    self.updates[message["id"]] = self.updates.get(message["id"], 0) + 1
                    if message.get("text"):
                        self.first_text.setdefault(message["id"], now)
                    if message.get("generating") is False:
                        self.final[message["id"]] = now
        threading.Thread(target=lambda: asyncio.run(main()), daemon=True).start()
        self.ready.wait(10)


def wait_for(predicate, timeout=300):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise TimeoutError("condition not met")


def peer_answer(client, channel, proxy_url, max_tokens, question):
    """Stream's sample approach: an ai_generated message, the indicator, and a partial update per chunk."""
    reply = channel.send_message({"text": "", "ai_generated": True}, "peer-bot")["message"]
    channel.send_event({"type": "ai_indicator.update", "ai_state": "AI_STATE_THINKING", "message_id": reply["id"]}, "peer-bot")
    body = {"model": "tiny", "stream": True, "max_tokens": max_tokens, "stream_options": {"include_usage": True},
            "messages": [{"role": "user", "content": question}]}
    text, tokens, generating = "", 0, False
    with requests.post(proxy_url + "/chat/completions", json=body, stream=True, timeout=600) as response:
        for line in response.iter_lines():
            if not line.startswith(b"data: {"):
                continue
            chunk = json.loads(line[6:])
            if chunk.get("usage"):
                tokens = chunk["usage"]["completion_tokens"]
            choices = chunk.get("choices") or []
            piece = (choices[0].get("delta") or {}).get("content") if choices else None
            if not piece:
                continue
            if not generating:
                channel.send_event({"type": "ai_indicator.update", "ai_state": "AI_STATE_GENERATING", "message_id": reply["id"]}, "peer-bot")
                generating = True
            text += piece
            client.update_message_partial(reply["id"], {"set": {"text": text, "generating": True}}, "peer-bot")
    client.update_message_partial(reply["id"], {"set": {"text": text, "generating": False}}, "peer-bot")
    channel.send_event({"type": "ai_indicator.clear", "message_id": reply["id"]}, "peer-bot")
    return reply["id"], tokens


def summarize(name, rows):
    first = statistics.median(row["first"] for row in rows)
    last = statistics.median(row["last"] for row in rows)
    updates = sum(row["updates"] for row in rows) / sum(row["tokens"] for row in rows) * 1000
    print(f"{name:6} first token -> text on socket {first:7.1f} ms (median) | last token -> final text {last:8.1f} ms (median) | "
          f"{updates:6.1f} updates per 1,000 tokens | {len(rows)} answers, {sum(row['tokens'] for row in rows)} tokens")


def main():
    bin_dir = Path(sys.argv[1])
    questions = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    max_tokens = int(sys.argv[3]) if len(sys.argv) > 3 else 400
    folder = Path(tempfile.mkdtemp(prefix="ai-bench-"))
    dev = subprocess.Popen([str(bin_dir / "bots"), "serve", "--port", "0", "--data", str(folder / "data"), "--api-key", API_KEY,
                            "--api-secret", API_SECRET, "--log-level", "warning"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base_url = None
    while base_url is None:
        match = re.search(r"listening on (http://127\.0\.0\.1:\d+)", dev.stdout.readline())
        base_url = match and match.group(1)
    model = ModelServer(folder / "model").start()
    proxy = Proxy(int(model.url.rsplit(":", 1)[1].split("/")[0])).start()
    proxy_url = f"http://127.0.0.1:{proxy.port}/v1"
    client = StreamChat(API_KEY, API_SECRET, base_url=base_url + "/", timeout=30.0)
    client.upsert_users([{"id": "alice", "name": "Alice"}, {"id": "peer-bot", "name": "Peer bot"}])
    channel = client.channel("messaging", "bench")
    channel.create("alice")
    channel.add_members(["alice", "peer-bot"])
    watcher = Watcher(base_url, client, "alice", "bench")
    config = folder / "bots.yaml"
    config.write_text(f"""
server: {{ url: {base_url}, api_key: {API_KEY}, api_secret: {API_SECRET} }}
llm: {{ url: "{proxy_url}", model: tiny, max_tokens: {max_tokens} }}
bots:
  - {{ name: workout, kind: workout, user: workout-bot, channels: [messaging:bench], database: {folder}/workouts.sqlite }}
""")
    bots = subprocess.Popen([str(bin_dir / "bots"), "run", "--config", str(config), "--log-level", "warning"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    while "Ctrl-C stops everything" not in bots.stdout.readline():
        pass
    threading.Thread(target=lambda: [None for _ in bots.stdout], daemon=True).start()
    results = {"ours": [], "peer": []}
    try:
        for round in range(questions):
            for side in ("ours", "peer"):
                answers_before = len(proxy.answers)
                question = f"@workout-bot question {round}: how far did I run this week?"
                if side == "ours":
                    channel.send_message({"text": question}, "alice")
                    reply_id = wait_for(lambda: next((m["id"] for m in channel.query(messages={"limit": 100})["messages"]
                                                      if m["user"]["id"] == "workout-bot" and m["id"] not in watcher.first_text
                                                      and m["id"] not in [r["id"] for r in results["ours"]]), None))
                    wait_for(lambda: reply_id in watcher.final)
                    # An answer may take several model rounds (tools); the text is the last one's.
                    tokens = client.get_message(reply_id)["message"].get("ai_usage", {}).get("completion_tokens", 0)
                else:
                    reply_id, tokens = peer_answer(client, channel, proxy_url, max_tokens, question)
                    wait_for(lambda: reply_id in watcher.final)
                answer = next((a for a in reversed(proxy.answers[answers_before:]) if a["first"]), None)
                if answer is None:
                    continue
                results[side].append({
                    "id": reply_id, "tokens": max(tokens, answer["chunks"]), "updates": watcher.updates[reply_id] - 1,
                    "first": (watcher.first_text[reply_id] - answer["first"]) * 1000, "last": (watcher.final[reply_id] - answer["last"]) * 1000})
        print(f"Streamed AI replies: {questions} questions each, max_tokens {max_tokens}, one dev server, one model server")
        summarize("ours", results["ours"])
        summarize("peer", results["peer"])
    finally:
        bots.send_signal(signal.SIGTERM)
        bots.wait(timeout=30)
        model.stop()
        dev.send_signal(signal.SIGTERM)
        dev.wait(timeout=30)


if __name__ == "__main__":
    main()
