"""Bad input, each with the answer it gets. Nothing bad is stored and the server keeps going."""

import subprocess
import time

import pytest
import requests

from conftest import API_KEY, API_SECRET, png_bytes, user_headers
from stream_chat import StreamChat


def post(server, client, path, body=None, data=None, user="bot-1", headers=None):
    all_headers = user_headers(client, user)
    all_headers.update(headers or {})
    return requests.post(server.url(path + ("&" if "?" in path else "?") + f"api_key={API_KEY}"),
                         json=body, data=data, headers=all_headers)


def assert_envelope(response, status, code, words):
    assert response.status_code == status, response.text
    body = response.json()
    assert body["code"] == code and body["StatusCode"] == status
    assert body["more_info"] and body["duration"].endswith("ms")
    assert words in body["message"], body["message"]


def test_malformed_json_bodies(server, client, channel):
    assert_envelope(post(server, client, "/channels/messaging/general/message", data=b'{"message": {"text": "hi"'),
                    400, 4, "invalid JSON body")
    assert_envelope(post(server, client, "/channels/messaging/general/message", data=b"[1, 2]"),
                    400, 4, "must be a JSON object")
    assert_envelope(post(server, client, "/channels/messaging/general/message", data=b"\xff\xfe not json"),
                    400, 4, "invalid JSON body")


def test_text_that_is_not_utf8_is_refused_and_not_stored(server, client, channel):
    # Latin-1 "café": the 0xE9 byte is not UTF-8, which JSON requires; nothing is stored with
    # a replacement character in its place.
    body = b'{"message": {"text": "caf\xe9 latin1"}}'
    assert_envelope(post(server, client, "/channels/messaging/general/message", data=body,
                         headers={"Content-Type": "application/json"}),
                    400, 4, "does not start a valid UTF-8 sequence")
    texts = [message["text"] for message in channel.query(messages={"limit": 50})["messages"]]
    assert not any("latin1" in text for text in texts), texts


def test_missing_and_wrongly_typed_fields(server, client, channel):
    assert_envelope(post(server, client, "/channels/messaging/general/message", {}), 400, 4, "message is a required field")
    assert_envelope(post(server, client, "/channels/messaging/general/message", {"message": {"text": 5}}),
                    400, 4, "message.text must be a string")
    assert_envelope(post(server, client, "/channels/messaging/general/message",
                         {"message": {"text": "x", "attachments": ["not an object"]}}),
                    400, 4, "message.attachments[0] must be an object")
    assert_envelope(post(server, client, "/channels/messaging/general/message", {"message": {"text": "x" * 5001}}),
                    400, 20, "too long")
    assert_envelope(post(server, client, "/messages/missing/reaction", {"reaction": {}}), 400, 4, "reaction.type is required")
    assert_envelope(post(server, client, "/sync", {"channel_cids": "messaging:general"}), 400, 4, "channel_cids must be an array")
    with pytest.raises(Exception) as error:
        client.channel("messaging", "general").send_message({"text": "no author"}, user_id=None)
    assert "user_id" in str(error.value) or "user" in str(error.value)


def test_unknown_channel_types_and_missing_things(server, client, channel):
    assert_envelope(post(server, client, "/channels/spaceship/x/query", {"state": True}), 404, 16, "channel type \"spaceship\" does not exist")
    assert_envelope(post(server, client, "/channels/messaging/nowhere/message", {"message": {"text": "hi"}}),
                    404, 16, "channel messaging:nowhere does not exist")
    assert_envelope(requests.get(server.url(f"/messages/ghost?api_key={API_KEY}"), headers=user_headers(client, "bot-1")),
                    404, 16, "does not exist")
    assert_envelope(requests.get(server.url(f"/no/such/endpoint?api_key={API_KEY}")), 404, 16, "not an endpoint")


@pytest.mark.parametrize("case,code,words", [
    ("expired", 40, "token has expired"),
    ("wrong-signature", 43, "signature is not valid"),
    ("missing-key", 2, "API key not found"),
    ("wrong-key", 2, "is not valid for this server"),
    ("no-token", 5, "no token"),
    ("garbage", 5, "not a JWT"),
    ("dev-token", 43, "--dev"),
])
def test_bad_tokens_get_401_with_stream_codes(server, client, case, code, words):
    token = {
        "expired": client.create_token("u2", exp=int(time.time()) - 10),
        "wrong-signature": StreamChat(API_KEY, "another-secret-of-at-least-thirty-two-bytes").create_token("u2"),
        "garbage": "not-a-token",
        "dev-token": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ1c2VyX2lkIjoidTIifQ.devtoken",
    }.get(case, client.create_token("u2"))
    key = {"missing-key": None, "wrong-key": "other"}.get(case, API_KEY)
    url = server.url("/app") + (f"?api_key={key}" if key else "")
    headers = {} if case == "no-token" else {"Authorization": token, "stream-auth-type": "jwt"}
    assert_envelope(requests.get(url, headers=headers), 401, code, words)


def test_oversize_upload_is_refused_and_leaves_no_file(tmp_path, server, client, channel):
    client.update_app_settings(file_upload_config={"size_limit": 1000})
    big = tmp_path / "big.bin"
    big.write_bytes(b"x" * 5000)
    with open(big, "rb") as handle:
        response = requests.post(
            server.url(f"/channels/messaging/general/file?api_key={API_KEY}"),
            files={"file": ("big.bin", handle, "application/octet-stream")},
            headers={"Authorization": client.create_token("bot-1"), "stream-auth-type": "jwt"})
    assert_envelope(response, 413, 22, "larger than the upload limit of 1000 bytes")
    leftovers = [path for path in (server.data_dir / "files").rglob("*") if path.is_file()]
    assert leftovers == []


def test_streaming_limit_holds_even_when_the_length_is_not_declared(tmp_path, server, client, channel):
    client.update_app_settings(file_upload_config={"size_limit": 200_000})

    def body():
        yield b"--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"stream.bin\"\r\n"
        yield b"Content-Type: application/octet-stream\r\n\r\n"
        for _ in range(64):
            yield b"y" * 16_384
        yield b"\r\n--XyZ--\r\n"

    response = requests.post(server.url(f"/channels/messaging/general/file?api_key={API_KEY}"), data=body(),
                             headers={"Authorization": client.create_token("bot-1"), "stream-auth-type": "jwt",
                                      "Content-Type": "multipart/form-data; boundary=XyZ"})
    assert_envelope(response, 413, 22, "larger than the upload limit of 195.3 KB")
    assert [path for path in (server.data_dir / "files").rglob("*") if path.is_file()] == []


def upload(server, client, path, name, content, mime, kind="file"):
    return requests.post(server.url(f"/channels/messaging/general/{kind}?api_key={API_KEY}"),
                         files={"file": (name, content, mime), "user": (None, '{"id": "bot-1"}')},
                         headers={"Authorization": client.auth_token, "stream-auth-type": "jwt"})


def test_blocked_extensions_and_mime_types(server, client, channel):
    client.update_app_settings(file_upload_config={"blocked_file_extensions": [".exe", ".bat"],
                                                   "blocked_mime_types": ["application/x-sh"],
                                                   "allowed_mime_types": ["text/*", "application/pdf", "application/x-sh"]})
    assert_envelope(upload(server, client, "", "virus.EXE", b"MZ", "application/octet-stream"), 400, 4, "File extension .exe is blocked")
    assert_envelope(upload(server, client, "", "run.sh", b"echo", "application/x-sh"), 400, 4, "File type application/x-sh is blocked")
    assert_envelope(upload(server, client, "", "a.zip", b"PK", "application/zip"), 400, 4, "is not allowed")
    assert upload(server, client, "", "ok.txt", b"fine", "text/plain").status_code == 201


def test_spoofed_mime_part_on_image(server, client, channel):
    assert_envelope(upload(server, client, "", "photo.png", b"MZ\x90\x00 not a png at all", "image/png", "image"),
                    400, 4, "File content is not a valid image/png image")
    assert_envelope(upload(server, client, "", "photo.png", png_bytes(), "application/octet-stream", "image"),
                    400, 4, "File type application/octet-stream is not supported")
    assert upload(server, client, "", "photo.png", png_bytes(), "image/png", "image").status_code == 201


def test_not_multipart_and_no_file_part(server, client, channel):
    assert_envelope(post(server, client, "/channels/messaging/general/file", {"file": "x"}), 400, 4,
                    "request Content-Type isn't multipart/form-data")
    response = requests.post(server.url(f"/channels/messaging/general/file?api_key={API_KEY}"),
                             files={"user": (None, '{"id": "bot-1"}')},
                             headers={"Authorization": client.auth_token, "stream-auth-type": "jwt"})
    assert_envelope(response, 400, 4, "no such file")


@pytest.mark.parametrize("name", ["../../etc/passwd", "/etc/shadow", "..\\..\\boot.ini", "a\"b;c.txt", "....", "x" * 300 + ".txt"])
def test_hostile_filenames_change_nothing_outside_the_store(tmp_path, server, client, channel, name):
    before = sorted(str(path) for path in tmp_path.rglob("*"))
    response = upload(server, client, "", name, b"payload", "text/plain")
    assert response.status_code == 201, response.text
    link = response.json()["file"]
    path = link.split("?")[0].split("/files/")[1]
    assert ".." not in path and "\\" not in path and len(path.split("/")[1]) <= 100
    assert requests.get(link).content == b"payload"
    created = sorted(set(str(path) for path in tmp_path.rglob("*")) - set(before))
    assert all(entry.startswith(str(server.data_dir / "files")) for entry in created), created


def test_tampered_and_unsigned_links_get_403(server, client, channel):
    link = upload(server, client, "", "doc.txt", b"secret bytes", "text/plain").json()["file"]
    base, query = link.split("?")
    tampered = link.replace("Signature=", "Signature=A")
    assert_envelope(requests.get(tampered), 403, 17, "signature does not match")
    longer = link.replace("Expires=", "Expires=9")
    assert_envelope(requests.get(longer), 403, 17, "signature does not match")
    other_file = base.replace("doc.txt", "other.txt") + "?" + query
    assert_envelope(requests.get(other_file), 403, 17, "signature does not match")
    assert_envelope(requests.get(base), 403, 17, "not signed")


def test_expect_100_continue_is_answered(tmp_path, server, client, channel):
    payload = tmp_path / "large.bin"
    payload.write_bytes(b"z" * (2 * 1024 * 1024))
    started = time.monotonic()
    result = subprocess.run(
        ["curl", "-sS", "-v", "-H", f"Authorization: {client.auth_token}", "-H", "stream-auth-type: jwt",
         "-H", "Expect: 100-continue", "-F", f"file=@{payload};type=application/octet-stream",
         server.url(f"/channels/messaging/general/file?api_key={API_KEY}")],
        capture_output=True, text=True, timeout=30)
    elapsed = time.monotonic() - started
    assert "HTTP/1.1 100 Continue" in result.stderr
    assert '"file":"http' in result.stdout
    assert elapsed < 0.9, f"curl waited {elapsed:.2f}s: the 100-continue came too late"


def test_bad_channel_query_sorts(server, client, channel):
    members = {"members": {"$in": ["bot-1"]}}
    assert_envelope(post(server, client, "/channels", {"filter_conditions": members, "sort": "created_at"}),
                    400, 4, "sort must be an array of {field, direction}")
    assert_envelope(post(server, client, "/channels", {"filter_conditions": members, "sort": [{"direction": 1}]}),
                    400, 4, "each sort entry needs a field")
    assert_envelope(post(server, client, "/channels", {"filter_conditions": members, "sort": [{"field": "created_at", "direction": 0}]}),
                    400, 4, "sort direction must be 1 or -1")
    good = post(server, client, "/channels", {"filter_conditions": members, "sort": [{"field": "created_at", "direction": -1}]})
    assert [state["channel"]["cid"] for state in good.json()["channels"]] == ["messaging:general"]
