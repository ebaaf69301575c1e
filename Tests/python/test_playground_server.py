"""What the dev server serves of the playground, over plain HTTP: nothing outside dev mode (no
page, no token), and in dev mode the page with its security headers and a token route that
says what is wrong with a bad request."""

import json

import pytest
import requests
import websockets.sync.client

from conftest import API_KEY, DevServerProcess, serving_is_refused


@pytest.fixture
def dev_server(tmp_path):
    process = DevServerProcess(tmp_path / "dev-data", ["--dev"]).start()
    yield process
    process.stop()


def test_without_dev_mode_there_is_no_page_and_no_token(server):
    for method, path in (("GET", "/"), ("GET", "/playground/app.js"), ("GET", "/playground/users"), ("POST", "/playground/session")):
        answer = requests.request(method, server.url(path), json={"user_id": "alice"} if method == "POST" else None, timeout=10)
        assert answer.status_code == 404, (path, answer.status_code, answer.text)
        assert "token" not in answer.text
    assert server.process.stdout.readline().startswith("API key: "), "no Playground line after the server's address"


def test_in_dev_mode_the_page_and_its_modules_carry_a_policy_without_inline_script(dev_server):
    assert dev_server.process.stdout.readline() == f"Playground: {dev_server.base_url}/\n"
    page = requests.get(dev_server.url("/"), timeout=10)
    assert page.status_code == 200 and page.headers["Content-Type"] == "text/html; charset=utf-8"
    assert '<script type="module" src="/playground/app.js"></script>' in page.text
    policy = page.headers["Content-Security-Policy"]
    assert "script-src 'self';" in policy and "unsafe-inline" not in policy and "unsafe-eval" not in policy, policy
    assert f"connect-src 'self' ws://{dev_server.base_url.removeprefix('http://')};" in policy and "object-src 'none'" in policy
    assert page.headers["X-Content-Type-Options"] == "nosniff"
    script = requests.get(dev_server.url("/playground/app.js"), timeout=10)
    assert script.status_code == 200 and script.headers["Content-Type"] == "text/javascript; charset=utf-8"
    assert script.headers["Content-Security-Policy"] == policy
    missing = requests.get(dev_server.url("/playground/nothing.js"), timeout=10)
    assert missing.status_code == 404 and "no file nothing.js" in missing.json()["message"]
    for path in ("/playground/..%2FDevServer.swift", "/playground/%2E%2E"):
        assert requests.get(dev_server.url(path), timeout=10).status_code == 404


def test_the_session_route_mints_a_token_that_opens_the_connection_and_joins_the_channel(dev_server):
    answer = requests.post(dev_server.url("/playground/session"), json={"user_id": "alice", "name": "Alice", "channel": "messaging:fresh"}, timeout=10)
    assert answer.status_code == 201, answer.text
    session = answer.json()
    assert session["api_key"] == API_KEY and session["user"]["id"] == "alice" and session["user"]["name"] == "Alice"
    assert session["channel"] == "messaging:fresh"
    headers = {"Authorization": session["token"], "stream-auth-type": "jwt"}
    state = requests.post(dev_server.url("/channels/messaging/fresh/query"), params={"api_key": API_KEY}, headers=headers, json={}, timeout=10)
    assert state.status_code == 201 and [m["user"]["id"] for m in state.json()["members"]] == ["alice"], state.text
    query = {"api_key": API_KEY, "authorization": session["token"], "stream-auth-type": "jwt", "json": json.dumps({"user_id": "alice"})}
    url = dev_server.base_url.replace("http://", "ws://") + "/connect?" + requests.compat.urlencode(query)
    with websockets.sync.client.connect(url) as socket:
        first = json.loads(socket.recv(timeout=10))
    assert first["type"] == "health.check" and first["me"]["id"] == "alice"
    # Asked again, she is still one member, and she is among the users to pick.
    requests.post(dev_server.url("/playground/session"), json={"user_id": "alice", "channel": "messaging:fresh"}, timeout=10).raise_for_status()
    assert len(requests.post(dev_server.url("/channels/messaging/fresh/query"), params={"api_key": API_KEY}, headers=headers, json={},
                             timeout=10).json()["members"]) == 1
    assert {"id": "alice", "name": "Alice"} in requests.get(dev_server.url("/playground/users"), timeout=10).json()["users"]


@pytest.mark.parametrize("body, status, expected", [
    ({}, 400, "user_id must be 1 to 64 letters, digits, '@', '_' or '-', such as alice"),
    ({"user_id": "a b"}, 400, "user_id must be 1 to 64"),
    ({"user_id": "x" * 65}, 400, "user_id must be 1 to 64"),
    ({"user_id": "alice", "channel": "general"}, 400, "must look like type:id"),
    ({"user_id": "alice", "channel": "nochat:general"}, 404, "channel type \"nochat\" does not exist"),
])
def test_a_bad_session_request_says_what_is_wrong_and_makes_nothing(dev_server, body, status, expected):
    answer = requests.post(dev_server.url("/playground/session"), json=body, timeout=10)
    assert answer.status_code == status and expected in answer.json()["message"], answer.text
    assert "token" not in answer.json()
    assert requests.get(dev_server.url("/playground/users"), timeout=10).json()["users"] == []


def test_the_bots_own_renderers_are_served_as_they_are_now_and_a_missing_file_says_so(tmp_path):
    renderers = tmp_path / "renderers.js"
    process = DevServerProcess(tmp_path / "data", ["--dev", "--playground-renderers", str(renderers)]).start()
    try:
        session = requests.post(process.url("/playground/session"), json={"user_id": "alice"}, timeout=10).json()
        assert session["renderers"] == "/playground/renderers.js"
        missing = requests.get(process.url("/playground/renderers.js"), timeout=10)
        assert missing.status_code == 404 and f"the playground renderers {renderers} cannot be read" in missing.json()["message"]
        renderers.write_text("export const first = 1;\n")
        assert requests.get(process.url("/playground/renderers.js"), timeout=10).text == "export const first = 1;\n"
        renderers.write_text("export const second = 2;\n")
        served = requests.get(process.url("/playground/renderers.js"), timeout=10)
        assert served.text == "export const second = 2;\n" and served.headers["Content-Type"] == "text/javascript; charset=utf-8"
    finally:
        process.stop()


def test_a_playground_renderers_setting_that_is_not_a_path_is_refused_with_its_place(tmp_path):
    serving_is_refused(tmp_path, "embedded:\n  playground_renderers: [a.js]\nbots: []\n",
                       ":3:25: error: embedded.playground_renderers must be a string, found a list")
