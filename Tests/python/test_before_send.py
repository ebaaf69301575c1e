"""The Before Message Send webhook on the dev server, checked with the official SDK: the
settings (`update_app_settings`, `get_app_settings`), the request a hook of our own gets
(signed like every webhook, `verify_webhook`), what each answer does (pass, rewrite, refuse),
what a hook that fails gets (it fails open, as Stream's page says: late, unreachable, 5xx,
garbage), and range requests on the file route."""

import json
import threading
import time
import urllib.parse

import pytest
import requests
from websockets.sync.client import connect

from conftest import API_KEY, refused, user_headers, wait_for
from hook_server import HookServer


def before_send_hook(answer):
    """The before-send hook of a test (see hook_server.HookServer)."""
    return HookServer(answer, "/before-send")


@pytest.fixture
def hook():
    made = []

    def make(answer):
        made.append(before_send_hook(answer))
        return made[-1]

    yield make
    for each in made:
        each.stop()


def point(client, handler, timeout_ms=None):
    settings = {"before_message_send_hook_url": handler.url}
    if timeout_ms is not None:
        settings["before_message_send_hook_attempt_timeout_ms"] = timeout_ms
    client.update_app_settings(**settings)


class Watcher:
    """A member's WebSocket, watching messaging:general; collects every event on a thread."""

    def __init__(self, base_url, client, user_id):
        query = urllib.parse.urlencode({"api_key": client.api_key, "authorization": client.create_token(user_id), "stream-auth-type": "jwt",
                                        "json": json.dumps({"user_id": user_id, "server_determines_connection_id": True})})
        self.socket = connect(base_url.replace("http://", "ws://") + "/connect?" + query)
        connection_id = json.loads(self.socket.recv(timeout=10))["connection_id"]
        watched = requests.post(f"{base_url}/channels/messaging/general/query?api_key={client.api_key}&connection_id={connection_id}",
                                json={"watch": True, "state": True}, headers=user_headers(client, user_id), timeout=10)
        assert watched.status_code == 201, watched.text
        self.events = []
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        try:
            for frame in self.socket:
                self.events.append(json.loads(frame))
        except Exception:
            pass

    def new_texts(self):
        return [event["message"]["text"] for event in list(self.events) if event["type"] == "message.new"]

    def close(self):
        self.socket.close()
        self.thread.join(timeout=5)


def test_the_settings_are_set_and_read_through_the_sdk_and_bad_values_refused(client):
    client.update_app_settings(before_message_send_hook_url="https://bots.example.com/before-send",
                               before_message_send_hook_attempt_timeout_ms=2000)
    app = client.get_app_settings()["app"]
    assert app["before_message_send_hook_url"] == "https://bots.example.com/before-send"
    assert app["before_message_send_hook_attempt_timeout_ms"] == 2000
    client.update_app_settings(before_message_send_hook_attempt_timeout_ms=0)
    assert client.get_app_settings()["app"]["before_message_send_hook_attempt_timeout_ms"] == 0
    for value in (-1, 5001, "soon", 1.5):
        refused(lambda: client.update_app_settings(before_message_send_hook_attempt_timeout_ms=value), 400, 4,
                "before_message_send_hook_attempt_timeout_ms must be a whole number of milliseconds from 0 (the default, 1500) to 5000")
    refused(lambda: client.update_app_settings(before_message_send_hook_url="ftp://x"), 400, 4, "must be an http or https URL")
    assert client.get_app_settings()["app"]["before_message_send_hook_attempt_timeout_ms"] == 0, "a refused value changes nothing"


def test_the_hook_gets_message_user_channel_and_request_info_signed_as_webhooks_are(server, client, channel, hook):
    handler = hook(lambda body: (200, {}))
    point(client, handler)
    channel.send_message({"text": "no id of mine"}, "u2")
    headers = user_headers(client, "u2")
    headers.update({"x-stream-ext": "device-id=123", "X-Stream-Client": "stream-chat-test-1.0"})
    sent = requests.post(server.url(f"/channels/messaging/general/message?api_key={API_KEY}"),
                         json={"message": {"id": "chosen-1", "text": "as a user"}}, headers=headers, timeout=10)
    assert sent.status_code == 201, sent.text
    (path1, headers1, raw1), (_, headers2, raw2) = handler.requests
    assert path1 == "/before-send"
    assert client.verify_webhook(raw1, headers1["X-Signature"]) and client.verify_webhook(raw2, headers2["X-Signature"])
    assert headers1["X-Api-Key"] == API_KEY and headers1["X-Webhook-Attempt"] == "1" and headers1["X-Webhook-Id"]
    first, second = json.loads(raw1), json.loads(raw2)
    assert set(first) == {"message", "user", "channel", "request_info"}
    assert first["message"]["id"] == "" and first["message"]["text"] == "no id of mine"
    assert first["message"]["type"] == "regular" and first["user"]["id"] == "u2" and first["user"]["name"] == "Ann"
    assert first["channel"]["cid"] == "messaging:general" and first["channel"]["config"]["name"] == "messaging"
    assert first["request_info"]["type"] == "server" and first["request_info"]["ip"] == "127.0.0.1"
    assert second["message"]["id"] == "chosen-1"
    assert second["request_info"] == {"type": "client", "ip": "127.0.0.1", "user_agent": second["request_info"]["user_agent"],
                                      "sdk": "stream-chat-test-1.0", "ext": "device-id=123"}
    assert [m["text"] for m in channel.query()["messages"]] == ["no id of mine", "as a user"]


def rule(body):
    """A moderation hook: refuses 'password', rewrites 'darn', tries to change what it may not."""
    text = body["message"]["text"]
    if "password" in text:
        return 200, {"message": {"type": "error", "text": "Passwords stay out of this channel."}}
    if "darn" in text:
        return 200, {"message": {"text": text.replace("darn", "d**n"), "mood": "clean", "user": {"id": "mallory"},
                                 "created_at": "2001-01-01T00:00:00Z", "silent": True}}
    if "empty" in text:
        return 200, b""
    return 200, {"message": body["message"]}


def test_an_answer_passes_rewrites_or_refuses_and_a_refused_message_reaches_nobody(server, client, channel, hook):
    handler = hook(rule)
    point(client, handler)
    watcher = Watcher(server.base_url, client, "bot-1")
    try:
        refusal = channel.send_message({"text": "my password is hunter2"}, "u2")["message"]
        assert refusal["type"] == "error" and refusal["text"] == "Passwords stay out of this channel."
        rewritten = channel.send_message({"text": "darn it"}, "u2")["message"]
        assert rewritten["text"] == "d**n it" and rewritten["mood"] == "clean" and rewritten["silent"] is True
        assert rewritten["user"]["id"] == "u2" and not rewritten["created_at"].startswith("2001")
        assert channel.send_message({"text": "empty answer"}, "u2")["message"]["type"] == "regular"
        assert channel.send_message({"text": "echoed"}, "u2")["message"]["type"] == "regular"
        stored = [m["text"] for m in channel.query()["messages"]]
        assert stored == ["d**n it", "empty answer", "echoed"]
        wait_for(lambda: len(watcher.new_texts()) == 3)
        time.sleep(0.3)
        assert watcher.new_texts() == ["d**n it", "empty answer", "echoed"], "no message.new for the refused one"
        refused(lambda: client.get_message(refusal["id"]), 404, 16, "does not exist")
    finally:
        watcher.close()


@pytest.mark.parametrize("answer, why", [
    (lambda body: (500, {"error": "down"}), "answered HTTP 500"),
    (lambda body: (404, {}), "answered HTTP 404"),
    (lambda body: (200, b"<html>not json</html>"), "answered something other than a JSON object"),
    (lambda body: (200, {"message": "not an object"}), "answered a message that is not an object"),
    (lambda body: (200, {"message": {"text": "x" * 6000}}), "rewrote a message into one the service refuses"),
])
def test_a_hook_that_fails_or_answers_garbage_lets_the_message_through(server, client, channel, hook, answer, why):
    point(client, hook(answer))
    sent = channel.send_message({"text": "hello"}, "u2")["message"]
    assert sent["type"] == "regular" and sent["text"] == "hello"
    assert client.get_message(sent["id"])["message"]["text"] == "hello"


def test_a_late_hook_is_given_its_attempt_timeout_and_the_message_goes_through(server, client, channel, hook):
    def slow(body):
        time.sleep(3)
        return 200, {"message": {"type": "error", "text": "too late to matter"}}

    point(client, hook(slow), timeout_ms=500)
    started = time.monotonic()
    sent = channel.send_message({"text": "hello"}, "u2")["message"]
    took = time.monotonic() - started
    assert sent["type"] == "regular"
    assert 0.45 <= took < 2.0, took


def test_an_unreachable_hook_lets_the_message_through_at_once(server, client, channel, hook):
    handler = hook(rule)
    point(client, handler)
    handler.stop()
    started = time.monotonic()
    sent = channel.send_message({"text": "my password"}, "u2")["message"]
    assert sent["type"] == "regular" and time.monotonic() - started < 1.5


def test_a_link_that_expired_before_sending_reaches_the_hook_signed_afresh(server, client, channel, hook, tmp_path):
    handler = hook(lambda body: (200, {}))
    point(client, handler)
    photo = tmp_path / "cat.png"
    photo.write_bytes(b"\x89PNG\r\n\x1a\n" + b"x" * 100)
    link = channel.send_file(str(photo), "cat.png", {"id": "u2"}, content_type="image/png")["file"]
    time.sleep(2.5)  # the server's links live 2 s here
    assert requests.get(link, timeout=10).status_code == 403
    channel.send_message({"text": "old link", "attachments": [{"type": "file", "asset_url": link}]}, "u2")
    seen = handler.bodies()[0]["message"]["attachments"][0]["asset_url"]
    assert seen != link
    expires = int(urllib.parse.parse_qs(urllib.parse.urlsplit(seen).query)["Expires"][0])
    assert expires > time.time()
    assert requests.get(seen, timeout=10).content == photo.read_bytes()


def test_the_file_route_answers_range_requests_as_a_cdn_does(client, channel, tmp_path):
    data = bytes(range(256)) * 40
    path = tmp_path / "data.bin"
    path.write_bytes(data)
    link = channel.send_file(str(path), "data.bin", {"id": "u2"}, content_type="application/octet-stream")["file"]
    whole = requests.get(link, timeout=10)
    assert whole.status_code == 200 and whole.content == data and whole.headers["Accept-Ranges"] == "bytes"
    for header, status, body, content_range in [
        ("bytes=0-9", 206, data[:10], "bytes 0-9/10240"),
        ("bytes=10000-", 206, data[10000:], "bytes 10000-10239/10240"),
        ("bytes=-4", 206, data[-4:], "bytes 10236-10239/10240"),
        ("bytes=0-99999", 206, data, "bytes 0-10239/10240"),
        ("bytes=20000-", 416, b"", "bytes */10240"),
    ]:
        answer = requests.get(link, headers={"Range": header}, timeout=10)
        assert (answer.status_code, answer.content, answer.headers["Content-Range"]) == (status, body, content_range), header
    several = requests.get(link, headers={"Range": "bytes=0-1,5-6"}, timeout=10)
    assert several.status_code == 200 and several.content == data, "several ranges: the whole file, as RFC 9110 allows"
