"""The dev server's rate limits as the official Python SDK sees them: quotas per endpoint and
platform, named as the hosted service names its endpoints, reported by `GET /rate_limits`
(`get_rate_limits`), and set per endpoint in bots.yaml's `embedded.rate_limits`."""

import time

import pytest
import requests
from stream_chat import StreamChat
from stream_chat.base.exceptions import StreamAPIException

from conftest import API_KEY, API_SECRET, DevServerProcess, serving_is_refused, user_headers, wait_for
from test_bots_run import BotsRun, bot_messages
from test_bots_tracing import WORKOUT

PLATFORMS = {"server_side", "android", "ios", "web"}


@pytest.fixture
def limited(tmp_path):
    config = tmp_path / "bots.yaml"
    config.write_text(f"""
server: {{api_key: {API_KEY}, api_secret: {API_SECRET}}}
embedded:
  rate_limits: {{default: 500, SendMessage: 3}}
bots: []
""")
    process = DevServerProcess(tmp_path / "data", ["--config", str(config)]).start()
    yield process
    process.stop()


@pytest.fixture
def channel(limited):
    client = limited.client()
    client.upsert_users([{"id": "bot"}, {"id": "ann"}])
    channel = client.channel("messaging", "general")
    channel.create("bot")
    channel.add_members(["bot", "ann"])
    return channel


def test_every_endpoint_has_a_quota_on_every_platform(limited):
    client = limited.client()
    before = time.time()
    report = client.get_rate_limits()
    assert set(report.keys()) - {"duration"} == PLATFORMS
    for platform in PLATFORMS:
        quotas = report[platform]
        assert {"SendMessage", "GetOrCreateChannel", "UploadFile", "GetMessage", "GetRateLimits"} <= set(quotas)
        assert quotas["SendMessage"]["limit"] == 3 and quotas["GetApp"]["limit"] == 500
        # The window is the current minute; its end is a Unix time in seconds.
        assert before < quotas["SendMessage"]["reset"] <= before + 61
    # The call itself counts, on its own platform only.
    assert report["server_side"]["GetRateLimits"]["remaining"] == 499
    assert report["web"]["GetRateLimits"]["remaining"] == 500
    # What the headers of the same call say.
    assert report.rate_limit().limit == 500 and report.rate_limit().remaining == 499


def test_platforms_and_endpoints_can_be_picked(limited):
    client = limited.client()
    server_side = client.get_rate_limits(server_side=True)
    assert set(server_side.keys()) - {"duration"} == {"server_side"}
    mobile = client.get_rate_limits(android=True, ios=True, endpoints=["SendMessage", "UploadFile"])
    assert set(mobile.keys()) - {"duration"} == {"android", "ios"}
    assert set(mobile["ios"]) == {"SendMessage", "UploadFile"}


def test_a_spent_quota_gets_429_named_after_the_endpoint_and_stores_nothing(limited, channel):
    for number in range(3):
        sent = channel.send_message({"id": f"m{number}", "text": f"message {number}"}, "bot")
        assert sent.rate_limit().remaining == 2 - number
    with pytest.raises(StreamAPIException) as refused:
        channel.send_message({"id": "m3", "text": "one too many"}, "bot")
    assert (refused.value.status_code, refused.value.error_code) == (429, 9)
    assert refused.value.error_message.startswith('SendMessage failed with error: "Too many requests')
    client = limited.client()
    with pytest.raises(StreamAPIException) as missing:
        client.get_message("m3")
    assert missing.value.status_code == 404
    report = client.get_rate_limits(server_side=True, web=True, endpoints=["SendMessage"])
    assert report["server_side"]["SendMessage"]["remaining"] == 0
    assert report["web"]["SendMessage"]["remaining"] == 3
    # A user's app counts on its own platform: the server's spent quota does not stop it.
    as_ann = requests.post(limited.url(f"/channels/messaging/general/message?api_key={API_KEY}"),
                           json={"message": {"id": "from-ann", "text": "hi"}}, headers=user_headers(client, "ann"))
    assert as_ann.status_code == 201, as_ann.text
    assert as_ann.headers["x-ratelimit-remaining"] == "2"
    android = requests.post(limited.url(f"/channels/messaging/general/message?api_key={API_KEY}"),
                            json={"message": {"id": "from-ann-android", "text": "hi"}},
                            headers={**user_headers(client, "ann"), "X-Stream-Client": "stream-chat-android-6.0.0"})
    assert android.status_code == 201 and android.headers["x-ratelimit-remaining"] == "2"
    report = client.get_rate_limits(web=True, android=True, endpoints=["SendMessage"])
    assert report["web"]["SendMessage"]["remaining"] == 2 and report["android"]["SendMessage"]["remaining"] == 2


def test_file_links_are_not_api_calls(limited, channel, tmp_path):
    (tmp_path / "notes.txt").write_text("notes")
    link = channel.send_file(str(tmp_path / "notes.txt"), "notes.txt", {"id": "bot"}, content_type="text/plain")["file"]
    download = requests.get(link)
    assert download.status_code == 200 and download.content == b"notes"
    assert "x-ratelimit-limit" not in download.headers


def test_an_unknown_endpoint_name_is_refused_with_the_known_ones(limited):
    with pytest.raises(StreamAPIException) as refused:
        limited.client().get_rate_limits(endpoints=["SendMesage"])
    assert (refused.value.status_code, refused.value.error_code) == (400, 4)
    assert '"SendMesage" is not an endpoint' in refused.value.error_message
    assert "SendMessage" in refused.value.error_message


@pytest.mark.parametrize("limits, expected", [
    ("{SendMesage: 3}", ':4:17: error: unknown key "SendMesage" in embedded.rate_limits (did you mean "SendMessage"?)'),
    ("{SendMessage: 0}", ":4:30: error: embedded.rate_limits.SendMessage must be at least 1 request a minute, found 0"),
    ("{default: lots}", ':4:26: error: embedded.rate_limits.default must be a whole number, found "lots"'),
    ("[SendMessage]", ":4:16: error: embedded.rate_limits must be a mapping"),
])
def test_bad_rate_limits_in_bots_yaml_stop_the_server_before_it_starts(tmp_path, limits, expected):
    serving_is_refused(tmp_path, "embedded:\n  port: 0\n" f"  rate_limits: {limits}\nbots: []\n", expected)


@pytest.mark.parametrize("budget, expected", [
    ("{messages: lots}", ':5:30: error: bots[0].rate_budget.messages must be a rate such as 30/min, 5/s or 100/h, found "lots"'),
    ("{messages: 0/min}", ':5:30: error: bots[0].rate_budget.messages must be a rate such as 30/min, 5/s or 100/h, found "0/min"'),
    ("{uploads: 5/fortnight}", ':5:29: error: bots[0].rate_budget.uploads must be a rate such as 30/min, 5/s or 100/h, found "5/fortnight"'),
    ("{max_wait: 10s}", ":5:19: error: bots[0].rate_budget needs at least one of calls, messages or uploads, such as messages: 30/min"),
    ("{message: 30/min}", ':5:20: error: unknown key "message" in bots[0].rate_budget (did you mean "messages"?)'),
    ("{calls: 10/s, max_wait: soon}", ':5:43: error: bots[0].rate_budget.max_wait must be a duration such as 30s, 10m or 14d, found "soon"'),
])
def test_bad_rate_budgets_in_bots_yaml_are_located(tmp_path, budget, expected):
    serving_is_refused(tmp_path, "embedded: {port: 0}\nbots:\n"
                       f"  - {{name: w, kind: workout, channels: [messaging:general],\n     rate_budget: {budget}}}\n", expected)


def test_bots_run_keeps_a_bot_within_its_rate_budget(tmp_path):
    config = tmp_path / "bots.yaml"
    config.write_text(f"""
server: {{api_key: {API_KEY}, api_secret: {API_SECRET}}}
embedded: {{port: 0, data: {tmp_path}/data}}
bots:
  - name: workout
    kind: workout
    user: workout-bot
    channels: [messaging:general]
    database: {tmp_path}/workouts.sqlite
    rate_budget: {{messages: 1/min, max_wait: 1s}}
""")
    run = BotsRun(config)
    try:
        client = StreamChat(API_KEY, API_SECRET, base_url=run.base_url + "/", timeout=10.0)
        client.upsert_user({"id": "alice"})
        channel = client.channel("messaging", "general")
        channel.add_members(["alice"])
        first = channel.send_message({"text": "run one", "attachments": [WORKOUT]}, "alice")["message"]
        wait_for(lambda: bot_messages(channel, "workout-bot", first["id"]))
        second = channel.send_message({"text": "run two", "attachments": [WORKOUT]}, "alice")["message"]
        # Its answer would wait a minute for the budget, over max_wait: refused unsent, and said so.
        def refusal_logged():
            run.output.append(run.process.stdout.readline())
            return "chat.budget_exceeded" in run.output[-1]
        wait_for(refusal_logged, timeout=15)
        assert bot_messages(channel, "workout-bot", second["id"]) == []
        assert len(bot_messages(channel, "workout-bot")) == 1
    finally:
        assert run.terminate() == 0, "".join(run.output)
    log = "".join(run.output)
    assert "the client's messages budget of 1/min is spent" in log, log
