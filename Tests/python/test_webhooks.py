"""The dev server's push webhook, checked with the official SDK (`update_app_settings`,
`verify_webhook`) and a receiver of our own, and bots that take their events by webhook
(`events: webhook` in bots.yaml) instead of a WebSocket."""

import gzip
import hashlib
import hmac
import http.server
import json
import signal
import threading
import time
import uuid

import pytest
import requests
from stream_chat import StreamChat
from stream_chat.base.exceptions import StreamAPIException

from conftest import API_KEY, API_SECRET, serving_is_refused, wait_for
from test_bots_run import BotsRun, bot_messages, sample, scrape
from test_bots_tracing import WORKOUT


class Receiver:
    """A webhook receiver on a loopback port that records every request and answers each with
    the next status of `statuses` (200 once they run out). Stopped at the end of its test."""

    def __init__(self, statuses=()):
        self.requests = []
        self.statuses = list(statuses)
        self.lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with receiver.lock:
                    receiver.requests.append((dict(self.headers.items()), body))
                    status = receiver.statuses.pop(0) if receiver.statuses else 200
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def events(self):
        with self.lock:
            return [(headers, body) for headers, body in self.requests]

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


@pytest.fixture
def receiver():
    receiver = Receiver()
    yield receiver
    receiver.stop()


def header(headers, name):
    return next(value for key, value in headers.items() if key.lower() == name.lower())


def test_settings_are_kept_and_every_event_is_posted_signed_as_the_sdk_verifies(client, channel, receiver):
    client.update_app_settings(webhook_url=receiver.url, webhook_events=[], webhook_compression_algorithm="")
    app = client.get_app_settings()["app"]
    assert app["webhook_url"] == receiver.url
    assert app["webhook_events"] == []

    sent = channel.send_message({"text": "hello hook", "attachments": [WORKOUT]}, "u2")["message"]
    channel.send_reaction(sent["id"], {"type": "like"}, "bot-1")
    posted = wait_for(lambda: [r for r in receiver.events() if json.loads(r[1])["type"] in ("message.new", "reaction.new")]
                      if len(receiver.events()) >= 2 else None)
    kinds = [json.loads(body)["type"] for _, body in receiver.events()]
    assert "message.new" in kinds and "reaction.new" in kinds, kinds
    for headers, body in posted:
        assert client.verify_webhook(body, header(headers, "X-Signature")), headers
        assert header(headers, "X-Api-Key") == API_KEY
        assert header(headers, "X-Webhook-Attempt") == "1"
        uuid.UUID(header(headers, "X-Webhook-Id"))
        assert header(headers, "Content-Type") == "application/json"
    new = next(json.loads(body) for _, body in posted if json.loads(body)["type"] == "message.new")
    assert new["cid"] == "messaging:general"
    assert new["message"]["id"] == sent["id"]
    assert new["message"]["attachments"][0]["workout-distance-meters"] == 5000
    # A body changed on the way does not verify.
    headers, body = posted[0]
    assert not client.verify_webhook(body + b" ", header(headers, "X-Signature"))
    # Each request has its own id.
    ids = [header(headers, "X-Webhook-Id") for headers, _ in receiver.events()]
    assert len(set(ids)) == len(ids)


def test_picked_events_only_and_gzipped_bodies_signed_before_compression(client, channel, receiver):
    client.update_app_settings(webhook_url=receiver.url, webhook_events=["message.new"], webhook_compression_algorithm="gzip")
    sent = channel.send_message({"text": "zipped"}, "u2")["message"]
    channel.send_reaction(sent["id"], {"type": "like"}, "bot-1")
    client.update_message({"id": sent["id"], "text": "zipped, edited", "user_id": "u2"})
    channel.send_message({"text": "second"}, "u2")
    wait_for(lambda: len(receiver.events()) >= 2)
    headers, body = receiver.events()[0]
    assert header(headers, "Content-Encoding") == "gzip"
    assert body[:2] == b"\x1f\x8b"
    json_body = gzip.decompress(body)
    assert client.verify_webhook(json_body, header(headers, "X-Signature"))
    assert not client.verify_webhook(body, header(headers, "X-Signature"))
    types = [json.loads(gzip.decompress(body))["type"] for _, body in receiver.events()]
    assert types == ["message.new", "message.new"], types


@pytest.mark.parametrize("statuses, attempts", [
    ([503, 500], 3),          # tried again with the same id until it is taken
    ([500, 502, 504], 3),     # three attempts, then given up
    ([429, 408], 3),
    ([400], 1),               # a refusal is not tried again
    ([401], 1),
])
def test_attempts_follow_the_services_rules(client, channel, statuses, attempts):
    receiver = Receiver(statuses)
    try:
        client.update_app_settings(webhook_url=receiver.url, webhook_events=["message.new"])
        channel.send_message({"text": "retry me"}, "u2")
        wait_for(lambda: len(receiver.events()) >= attempts)
        # Nothing more comes after the last attempt (they are 0.25 s and 0.5 s apart).
        time.sleep(1.5)
        assert len(receiver.events()) == attempts
        headers = [headers for headers, _ in receiver.events()]
        assert [header(h, "X-Webhook-Attempt") for h in headers] == [str(n) for n in range(1, attempts + 1)]
        assert len({header(h, "X-Webhook-Id") for h in headers}) == 1
        bodies = {body for _, body in receiver.events()}
        assert len(bodies) == 1
    finally:
        receiver.stop()


def test_a_receiver_that_cannot_be_reached_gets_two_attempts_and_the_server_goes_on(client, channel):
    receiver = Receiver()
    url = receiver.url
    receiver.stop()
    client.update_app_settings(webhook_url=url)
    started = time.monotonic()
    sent = channel.send_message({"text": "into the void"}, "u2")["message"]
    # The send does not wait for the webhook.
    assert time.monotonic() - started < 2
    assert channel.query(messages={"limit": 10})["messages"][-1]["id"] == sent["id"]


@pytest.mark.parametrize("settings, expected", [
    ({"webhook_url": "ftp://example.com/hook"}, "must be an http or https URL"),
    ({"webhook_url": "not a url"}, "must be an http or https URL"),
    ({"webhook_events": "message.new"}, "must be an array of event types"),
    ({"webhook_events": [""]}, "must be an array of event types"),
    ({"webhook_compression_algorithm": "br"}, 'must be "gzip" or ""'),
])
def test_bad_webhook_settings_are_refused_and_change_nothing(client, settings, expected):
    client.update_app_settings(webhook_url="http://127.0.0.1:9/kept")
    with pytest.raises(StreamAPIException) as raised:
        client.update_app_settings(**settings)
    assert raised.value.status_code == 400
    assert expected in raised.value.error_message, raised.value.error_message
    assert client.get_app_settings()["app"]["webhook_url"] == "http://127.0.0.1:9/kept"


def webhook_config(folder, extra=""):
    config = folder / "bots.yaml"
    config.write_text(f"""
server: {{api_key: {API_KEY}, api_secret: {API_SECRET}}}
embedded: {{port: 0, data: {folder}/data}}
webhook: {{port: 0}}
bots:
  - name: workout
    kind: workout
    user: workout-bot
    channels: [messaging:general]
    database: {folder}/workouts.sqlite
    events: webhook
{extra}""")
    return config


def test_bots_run_answers_by_webhook_with_no_websocket_and_refuses_forged_requests(tmp_path):
    run = BotsRun(webhook_config(tmp_path))
    try:
        output = "".join(run.output)
        webhook_url = next(line.split()[1] for line in run.output if line.startswith("Webhook: "))
        assert "events by webhook" in output, output
        client = StreamChat(API_KEY, API_SECRET, base_url=run.base_url + "/", timeout=10.0)
        assert client.get_app_settings()["app"]["webhook_url"] == webhook_url
        client.upsert_user({"id": "alice"})
        channel = client.channel("messaging", "general")
        channel.add_members(["alice"])
        sent = channel.send_message({"text": "morning run", "attachments": [WORKOUT]}, "alice")["message"]
        answer = wait_for(lambda: bot_messages(channel, "workout-bot", sent["id"]))
        assert answer[0]["text"].startswith("This week: 1 workout, 5.0 km"), answer
        # The bot's user never connected: it is not online.
        users = client.query_users({"id": "workout-bot"})["users"]
        assert users[0].get("online") is False, users

        # A request not signed with the app's secret is refused and handled by no one.
        event = {"type": "message.new", "cid": "messaging:general", "channel_type": "messaging", "channel_id": "general",
                 "message": {"id": "forged-1", "text": "forged", "attachments": [WORKOUT], "user": {"id": "alice"},
                             "created_at": sent["created_at"], "type": "regular"}}
        body = json.dumps(event).encode()
        forged = hmac.new(b"another-secret-of-32-bytes-or-more", body, hashlib.sha256).hexdigest()
        refused = requests.post(webhook_url, data=body, headers={"X-Signature": forged, "Content-Type": "application/json"})
        assert refused.status_code == 401
        assert refused.json()["code"] == "webhook.signature_mismatch"
        unsigned = requests.post(webhook_url, data=body)
        assert unsigned.status_code == 401
        assert unsigned.json()["code"] == "webhook.signature_missing"
        garbled = requests.post(webhook_url, data=b"\x1f\x8bnot gzip", headers={"Content-Encoding": "gzip", "X-Signature": "00"})
        assert garbled.status_code == 400 and garbled.json()["code"] == "webhook.corrupt_gzip"

        # The service's retry of a request taken before (same X-Webhook-Id) is answered and not handled twice.
        real = json.dumps({"type": "message.new", "cid": "messaging:general", "message": sent}).encode()
        signature = hmac.new(API_SECRET.encode(), real, hashlib.sha256).hexdigest()
        again = requests.post(webhook_url, data=real, headers={"X-Signature": signature, "X-Webhook-Id": str(uuid.uuid4())})
        assert again.status_code == 200, again.text
        time.sleep(1)
        assert len(bot_messages(channel, "workout-bot", sent["id"])) == 1
    finally:
        assert run.terminate() == 0, "".join(run.output)


def test_a_bot_switched_to_events_by_webhook_on_reload_takes_them_from_the_webhook(tmp_path):
    config = webhook_config(tmp_path, "metrics: {port: 0}\n")
    by_webhook = config.read_text()
    config.write_text(by_webhook.replace("    events: webhook\n", ""))
    run = BotsRun(config)
    try:
        assert "events by webhook" not in "".join(run.output)
        client = StreamChat(API_KEY, API_SECRET, base_url=run.base_url + "/", timeout=10.0)
        client.upsert_user({"id": "alice"})
        channel = client.channel("messaging", "general")
        channel.add_members(["alice"])
        config.write_text(by_webhook)
        run.process.send_signal(signal.SIGHUP)
        wait_for(lambda: sample(scrape(run.metrics_url)[0], "chatbotkit_config_reloads_total", outcome="applied") == 1)
        wait_for(lambda: client.query_users({"id": "workout-bot"})["users"][0].get("online") is False)
        taken = sample(scrape(run.metrics_url)[0], "chatbotkit_webhook_requests_total", outcome="taken") or 0
        sent = channel.send_message({"text": "after the reload", "attachments": [WORKOUT]}, "alice")["message"]
        wait_for(lambda: bot_messages(channel, "workout-bot", sent["id"]))
        # It came by the webhook: the request was taken, and the bot's user never connected again.
        assert (sample(scrape(run.metrics_url)[0], "chatbotkit_webhook_requests_total", outcome="taken") or 0) > taken
        assert client.query_users({"id": "workout-bot"})["users"][0].get("online") is False
    finally:
        assert run.terminate() == 0, "".join(run.output)


@pytest.mark.parametrize("text, expected", [
    ("bots:\n  - {name: w, kind: workout, channels: [messaging:general], events: webhook}\n",
     ":3:69: error: bot w takes its events by webhook, and bots.yaml has no webhook: section to take them at"),
    ("webhook: {port: 8789}\nbots:\n  - {name: w, kind: workout, channels: [messaging:general], events: pigeon}\n",
     ':4:69: error: bots[0].events must be websocket or webhook, found "pigeon"'),
    ("embedded: {port: 8788}\nwebhook: {port: 8788}\nbots:\n  - {name: w, kind: workout, channels: [messaging:general]}\n",
     ":3:17: error: webhook.port 8788 is the embedded dev server's port; give the webhook a port of its own"),
    ("webhook: {path: hook}\nbots:\n  - {name: w, kind: workout, channels: [messaging:general]}\n",
     ':2:17: error: webhook.path must be a path such as /webhook, found "hook"'),
    ("webhook: {port: 8789, secret: x}\nbots:\n  - {name: w, kind: workout, channels: [messaging:general]}\n",
     ':2:23: error: unknown key "secret" in webhook'),
])
def test_bad_webhook_sections_are_located(tmp_path, text, expected):
    serving_is_refused(tmp_path, text, expected)
