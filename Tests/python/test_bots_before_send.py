"""The moderation bot with `check: before_send`, end to end: `bots run` serves the app's
Before Message Send hook and points the embedded dev server at it; the official SDK plays the
users, and a member's WebSocket watches the channel. Files are judged from their first bytes
within the hook's deadline; what is refused is never stored nor announced, and its sender
reads why. A bot that is stopped or stuck gets what Stream's page says: the message goes through."""

import re
import shutil
import signal
import struct
import time
from pathlib import Path

import pytest
import requests
from stream_chat import StreamChat

from conftest import DevServerProcess, wait_for
from test_before_send import Watcher
from test_bots_run import BotsRun, bot_messages, sample, scrape

API_KEY = "run-key"
API_SECRET = "run-secret-of-at-least-thirty-two-bytes"

MODERATOR = """
  - name: moderator
    kind: moderation
    user: moderator
    channels: [messaging:general]
    policy:
      allowed_mime_types: [image/*, video/*, application/pdf, text/csv]
      blocked_file_extensions: [.exe, .dll, .bat, .sh]
      max_file_size: 100MB
      sniff_content: true
      action: delete_and_notify
      check: before_send
      ban_after: 5
"""


def write_config(folder: Path, server_url=None) -> Path:
    server = f"  url: {server_url}\n" if server_url else ""
    embedded = "" if server_url else f"embedded: {{port: 0, data: {folder}/data, health_check_interval: 1s, link_lifetime: 3s}}\n"
    config = folder / "bots.yaml"
    config.write_text(f"server:\n{server}  api_key: {API_KEY}\n  api_secret: {API_SECRET}\n{embedded}"
                      "metrics: {port: 0}\nwebhook: {port: 0}\nbots:" + MODERATOR)
    return config


def files(folder: Path) -> dict:
    """An ELF and a PE named as pictures, a real PNG, PDF and CSV, and a 90 MB MP4."""
    made = {}
    made["holiday.png"] = folder / "holiday.png"
    shutil.copy(shutil.which("true"), made["holiday.png"])
    pe = bytearray(4096)
    pe[0:2] = b"MZ"
    struct.pack_into("<I", pe, 0x3C, 0x80)
    pe[0x80:0x84] = b"PE\0\0"
    struct.pack_into("<HHIIIHH", pe, 0x84, 0x14C, 1, 0, 0, 0, 0xE0, 0x0102)
    struct.pack_into("<H", pe, 0x98, 0x10B)
    made["selfie.jpg"] = folder / "selfie.jpg"
    made["selfie.jpg"].write_bytes(bytes(pe))
    made["cat.png"] = folder / "cat.png"
    made["cat.png"].write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
                                b"\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")
    made["notes.pdf"] = folder / "notes.pdf"
    made["notes.pdf"].write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")
    made["runs.csv"] = folder / "runs.csv"
    made["runs.csv"].write_text("date,km\n2026-11-01,5\n2026-11-02,7\n")
    made["ride.mp4"] = folder / "ride.mp4"
    with open(made["ride.mp4"], "wb") as video:
        video.write(struct.pack(">I", 32) + b"ftypisom" + struct.pack(">I", 512) + b"isomiso2avc1mp41")
        video.truncate(90 * 1024 * 1024)
    return made


TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".pdf": "application/pdf", ".csv": "text/csv", ".mp4": "video/mp4"}


def send(channel, path: Path, user="alice"):
    """Uploads `path` as a file (as a client would) and sends it; returns the send's answer and how long the send took."""
    link = channel.send_file(str(path), path.name, {"id": user}, content_type=TYPES[path.suffix])["file"]
    attachment = {"type": "file", "asset_url": link, "title": path.name, "mime_type": TYPES[path.suffix]}
    started = time.monotonic()
    answer = channel.send_message({"text": f"look: {path.name}", "attachments": [attachment]}, user)["message"]
    return answer, time.monotonic() - started, link


def members(client):
    client.upsert_users([{"id": "alice", "name": "Alice"}, {"id": "bob", "name": "Bob"}])
    channel = client.channel("messaging", "general")
    channel.add_members(["alice", "bob"])
    return channel


def test_disguised_programs_are_refused_before_anyone_sees_them_and_real_files_pass(tmp_path):
    made = files(tmp_path)
    run = BotsRun(write_config(tmp_path))
    try:
        assert any("Webhook: http://127.0.0.1:" in line for line in run.output), "".join(run.output)
        client = StreamChat(API_KEY, API_SECRET, base_url=run.base_url + "/", timeout=10.0)
        assert client.get_app_settings()["app"]["before_message_send_hook_url"].endswith("/before-send")
        channel = members(client)
        watcher = Watcher(run.base_url, client, "bob")
        try:
            for name, what in (("holiday.png", "it is really an executable program"), ("selfie.jpg", "it is really an executable program")):
                answer, took, link = send(channel, made[name])
                assert answer["type"] == "error", answer
                assert answer["text"].startswith(f"{name} was not posted: {what}"), answer["text"]
                assert took < 1.5, took
            for name in ("cat.png", "notes.pdf", "runs.csv"):
                answer, took, _ = send(channel, made[name])
                assert answer["type"] == "regular" and answer["attachments"][0]["title"] == name, answer
            answer, took, _ = send(channel, made["ride.mp4"])
            assert answer["type"] == "regular", answer
            assert took < 1.5, f"the 90 MB video took {took:.2f} s to judge"

            shown = [m["text"] for m in channel.query(messages={"limit": 100})["messages"] if m["user"]["id"] == "alice"]
            assert shown == ["look: cat.png", "look: notes.pdf", "look: runs.csv", "look: ride.mp4"]
            notices = wait_for(lambda: len(bot_messages(channel, "moderator")) == 2 and bot_messages(channel, "moderator"))
            assert [n["text"].split(" was not posted")[0] for n in notices] == ["@Alice: holiday.png", "@Alice: selfie.jpg"]
            wait_for(lambda: len(watcher.new_texts()) == 6)
            time.sleep(0.5)
            assert not [text for text in watcher.new_texts() if text.startswith("look: holiday") or text.startswith("look: selfie")]
        finally:
            watcher.close()
        # Only heads were read: range requests, never a whole download.
        samples = scrape(run.metrics_url)[0]
        assert (sample(samples, "chatbotkit_http_requests_total", operation="DownloadFileHead", status="206") or 0) >= 6
        assert not sample(samples, "chatbotkit_http_requests_total", operation="DownloadFile", status="200")
        assert sample(samples, "chatbotkit_before_send_total", outcome="reject") == 2
        assert run.terminate() == 0, "".join(run.output)
    finally:
        run.kill()


def test_a_refused_upload_leaves_the_cdn_and_an_expired_link_is_judged_signed_afresh(tmp_path):
    made = files(tmp_path)
    run = BotsRun(write_config(tmp_path))
    try:
        client = StreamChat(API_KEY, API_SECRET, base_url=run.base_url + "/", timeout=10.0)
        channel = members(client)
        answer, _, link = send(channel, made["holiday.png"])
        assert answer["type"] == "error"
        wait_for(lambda: requests.get(link, timeout=10).status_code == 404)

        # Uploaded, then sent after its link expired (links live 3 s here): the hook is given it
        # signed afresh, so the file is judged and refused all the same.
        link = channel.send_file(str(made["selfie.jpg"]), "selfie.jpg", {"id": "alice"}, content_type="image/jpeg")["file"]
        time.sleep(3.5)
        assert requests.get(link, timeout=10).status_code == 403
        late = channel.send_message({"text": "late", "attachments": [{"type": "file", "asset_url": link, "title": "selfie.jpg"}]}, "alice")
        assert late["message"]["type"] == "error" and "executable program" in late["message"]["text"]
    finally:
        run.kill()


def webhook_url(run):
    for line in run.output:
        match = re.search(r"Webhook: (http://127\.0\.0\.1:\d+)/webhook", line)
        if match:
            return match.group(1)
    raise AssertionError("bots run printed no webhook address:\n" + "".join(run.output))


def test_a_stuck_or_stopped_bot_lets_messages_through_as_the_hosted_service_does(tmp_path):
    made = files(tmp_path)
    server = DevServerProcess(tmp_path / "data").start()
    server_client = StreamChat("test-key", "test-secret-of-at-least-thirty-two-bytes", base_url=server.base_url + "/")
    (tmp_path / "bots").mkdir()
    config = write_config(tmp_path / "bots", server_url=server.base_url)
    config.write_text(config.read_text().replace(API_KEY, "test-key").replace(API_SECRET, "test-secret-of-at-least-thirty-two-bytes"))
    run = BotsRun(config)
    try:
        channel = members(server_client)
        server_client.update_app_settings(before_message_send_hook_url=webhook_url(run) + "/before-send")
        answer, _, _ = send(channel, made["holiday.png"])
        assert answer["type"] == "error", "the bot judges while it runs"

        # Stuck (SIGSTOP): the server waits its 1.5 s and then stores the message as sent.
        run.process.send_signal(signal.SIGSTOP)
        try:
            answer, took, _ = send(channel, made["selfie.jpg"])
        finally:
            run.process.send_signal(signal.SIGCONT)
        assert answer["type"] == "regular", answer
        assert 1.4 <= took < 3.0, took
        # Back, the bot judges it once posted (as after_posting does) and removes it.
        notice = wait_for(lambda: [n for n in bot_messages(channel, "moderator") if "selfie.jpg was removed" in n["text"]], timeout=60, what=run.output)
        assert notice
        # Its late refusal refused nothing: no notice says the file was not posted.
        assert not [n for n in bot_messages(channel, "moderator") if "selfie.jpg was not posted" in n["text"]]

        # Stopped: nothing answers, the message is stored at once.
        assert run.terminate() == 0, "".join(run.output)
        answer, took, _ = send(channel, made["holiday.png"])
        assert answer["type"] == "regular" and took < 1.5, (answer, took)
        assert server_client.get_message(answer["id"])["message"]["attachments"][0]["title"] == "holiday.png"
    finally:
        run.kill()
        server.stop()
