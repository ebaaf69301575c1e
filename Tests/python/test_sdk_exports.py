"""The official Python SDK's channel exports (export_channel, export_channels,
get_export_channel_status, get_task) against the dev server."""

import json
import time

import requests

from conftest import API_KEY, refused, user_headers


def download(url: str) -> list:
    """The export file at `url`: one JSON object per channel, a line each."""
    response = requests.get(url)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    return [json.loads(line) for line in response.text.splitlines()]


def finished(client, task_id: str) -> dict:
    status = client.get_export_channel_status(task_id)
    assert status["task_id"] == task_id and status["status"] == "completed", status
    return status


def test_export_holds_the_channel_its_members_and_every_message_in_order(client, channel):
    channel.add_members(["u2"])
    channel.send_message({"id": "run", "text": "morning run", "attachments": [{"type": "workout", "workout-distance-meters": 5000}]}, "u2")
    channel.send_message({"id": "reply", "text": "nice one", "parent_id": "run"}, "bot-1")
    channel.send_message({"id": "oops", "text": "wrong channel"}, "u2")
    channel.send_reaction("run", {"type": "like"}, "bot-1")
    client.delete_message("oops")

    status = finished(client, client.export_channel("messaging", "general")["task_id"])
    [exported] = download(status["result"]["url"])
    assert exported["channel"]["cid"] == "messaging:general" and exported["channel"]["name"] == "General"
    assert sorted(member["user_id"] for member in exported["members"]) == ["bot-1", "u2"]
    messages = exported["messages"]
    assert [message["id"] for message in messages] == ["run", "reply", "oops"]
    assert messages[0]["attachments"] == [{"type": "workout", "workout-distance-meters": 5000}]
    assert messages[0]["reaction_counts"] == {"like": 1} and messages[0]["user"]["name"] == "Ann"
    assert messages[1]["parent_id"] == "run"
    assert messages[2]["type"] == "deleted" and messages[2]["text"] == "wrong channel"

    cleared = finished(client, client.export_channel("messaging", "general", clear_deleted_message_text=True)["task_id"])
    assert download(cleared["result"]["url"])[0]["messages"][2]["text"] == ""

    # A window: strictly after messages_since, strictly before messages_until.
    since = messages[0]["created_at"]
    until = messages[2]["created_at"]
    window = finished(client, client.export_channel("messaging", "general", messages_since=since, messages_until=until)["task_id"])
    assert [message["id"] for message in download(window["result"]["url"])[0]["messages"]] == ["reply"]


def test_truncated_messages_only_when_asked_and_several_channels_a_line_each(client, channel):
    client.channel("messaging", "second", data={"name": "Second"}).create("bot-1")
    channel.send_message({"id": "before", "text": "before the truncation"}, "bot-1")
    channel.truncate()
    channel.send_message({"id": "after", "text": "after it"}, "bot-1")

    task_id = client.export_channels([{"type": "messaging", "id": "general"}, {"type": "messaging", "id": "second"}])["task_id"]
    general, second = download(finished(client, task_id)["result"]["url"])
    assert [message["id"] for message in general["messages"]] == ["after"]
    assert second["channel"]["cid"] == "messaging:second" and second["messages"] == []

    everything = client.export_channel("messaging", "general", include_truncated_messages=True)["task_id"]
    assert [message["id"] for message in download(finished(client, everything)["result"]["url"])[0]["messages"]] == ["before", "after"]


def test_the_link_is_signed_afresh_on_every_read(client, channel):
    channel.send_message({"id": "one", "text": "one"}, "bot-1")
    task_id = client.export_channel("messaging", "general")["task_id"]
    stale = finished(client, task_id)["result"]["url"]
    assert "Expires=" in stale and "Signature=" in stale
    # The fixture's links live 2 s.
    time.sleep(2.5)
    expired = requests.get(stale)
    assert expired.status_code == 403 and "expired" in expired.json()["message"]
    fresh = client.get_task(task_id)["result"]["url"]
    assert fresh != stale
    assert [message["id"] for message in download(fresh)[0]["messages"]] == ["one"]


def test_bad_exports_are_refused_and_write_nothing(server, client, channel):
    refused(lambda: client.export_channels([]), 400, 4, "channels must be a list of 1 to 25 channels")
    many = [{"type": "messaging", "id": f"c{index}"} for index in range(26)]
    refused(lambda: client.export_channels(many), 400, 4, "channels must be a list of 1 to 25 channels")
    refused(lambda: client.export_channels([{"type": "messaging"}]), 400, 4, "channels[0] needs a channel type and id")
    refused(lambda: client.export_channel("messaging", "nope"), 400, 4, "channel messaging:nope does not exist")
    refused(lambda: client.export_channel("messaging", "general", messages_since="yesterday"), 400, 4,
            "channels[0].messages_since must be an RFC 3339 date")
    refused(lambda: client.export_channel("messaging", "general", version="v2"), 400, 4,
            "version \"v2\" is not supported by the dev server")
    refused(lambda: client.export_channel("messaging", "general", include_truncated_messages="yes"), 400, 4,
            "include_truncated_messages must be true or false")
    refused(lambda: client.get_export_channel_status("no-such-task"), 404, 16, "task no-such-task does not exist")
    as_user = requests.post(server.url(f"/export_channels?api_key={API_KEY}"), json={"channels": [{"type": "messaging", "id": "general"}]},
                            headers=user_headers(client, "u2"))
    assert as_user.status_code == 403 and "channels can only be exported with a server token" in as_user.json()["message"]

    channel.delete()
    refused(lambda: client.export_channel("messaging", "general"), 400, 4,
            "channel messaging:general was deleted; include_soft_deleted_channels: true exports it")
    task_id = client.export_channel("messaging", "general", include_soft_deleted_channels=True)["task_id"]
    assert download(finished(client, task_id)["result"]["url"])[0]["channel"]["cid"] == "messaging:general"
    exports = list((server.data_dir / "files").glob("*-*"))
    assert len(exports) == 1, "only the export that was not refused wrote a file"
