"""The official Python SDK's undelete_message against the dev server."""

import requests

from conftest import API_KEY, refused, user_headers


def test_undelete_message_restores_type_text_and_attachments(client, channel):
    attachment = {"type": "workout", "workout-distance-meters": 5000}
    channel.send_message({"id": "run", "text": "morning run", "attachments": [attachment], "mood": "great"}, "u2")
    channel.send_message({"id": "reply", "text": "nice", "parent_id": "run"}, "bot-1")
    client.delete_message("run")
    client.delete_message("reply")
    assert client.get_message("run")["message"]["type"] == "deleted"

    restored = client.undelete_message("run", "bot-1")["message"]
    assert restored["type"] == "regular" and restored.get("deleted_at") is None
    assert restored["text"] == "morning run" and restored["mood"] == "great" and restored["user"]["id"] == "u2"
    assert restored["attachments"] == [attachment]
    assert client.undelete_message("reply", "bot-1")["message"]["type"] == "reply"
    assert [message["text"] for message in channel.query()["messages"]] == ["morning run"]
    assert [message["text"] for message in channel.get_replies("run")["messages"]] == ["nice"]


def test_bad_undeletes_are_refused_and_change_nothing(server, client, channel):
    channel.send_message({"id": "kept", "text": "still here"}, "u2")
    channel.send_message({"id": "gone", "text": "gone for good"}, "u2")
    channel.send_message({"id": "removed", "text": "removed"}, "u2")
    client.delete_message("gone", hard=True)
    client.delete_message("removed")

    refused(lambda: client.undelete_message("kept", "bot-1"), 400, 4, "message kept is not deleted, so there is nothing to undelete")
    refused(lambda: client.undelete_message("gone", "bot-1"), 404, 16, "message with id gone does not exist")
    refused(lambda: client.undelete_message("removed", "ghost"), 400, 4, "undeleted_by names user ghost, who does not exist")
    refused(lambda: client.post("messages/removed/undelete", data={}), 400, 4, "undeleted_by is required")
    as_user = requests.post(server.url(f"/messages/removed/undelete?api_key={API_KEY}"), json={"undeleted_by": "u2"},
                            headers=user_headers(client, "u2"))
    assert as_user.status_code == 403 and "messages can only be undeleted with a server token" in as_user.json()["message"]
    assert client.get_message("removed")["message"]["type"] == "deleted", "nothing refused restored it"

    channel.truncate()
    refused(lambda: client.undelete_message("kept", "bot-1"), 400, 4,
            "was removed when channel messaging:general was truncated at")
    assert client.get_message("kept")["message"]["type"] == "deleted"
