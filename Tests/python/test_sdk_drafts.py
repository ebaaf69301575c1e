"""The official Python SDK's drafts (create_draft, get_draft, delete_draft, query_drafts) against the dev server."""

import asyncio
import json

from websockets.asyncio.client import connect

from conftest import refused
from test_websocket import connect_url


def test_a_draft_is_kept_per_channel_and_thread_until_sent_or_deleted(server, client, channel):
    channel.send_message({"id": "plan", "text": "plan"}, "bot-1")

    async def heard():
        async with connect(connect_url(server, client.create_token("u2"), "u2")) as socket:
            assert json.loads(await socket.recv())["type"] == "health.check"
            await asyncio.to_thread(lambda: channel.create_draft({"text": "half a thought", "mood": "unsure"}, "u2"))
            async with asyncio.timeout(5):  # one deadline: health checks come every second
                while True:
                    event = json.loads(await socket.recv())
                    if event["type"] == "draft.updated":
                        return event
    event = asyncio.run(heard())
    assert event["cid"] == "messaging:general" and event["draft"]["message"]["text"] == "half a thought"

    channel.create_draft({"text": "a reply", "parent_id": "plan"}, "u2")
    draft = channel.get_draft("u2")["draft"]
    assert draft["channel_cid"] == "messaging:general" and draft["message"]["text"] == "half a thought"
    assert draft["message"]["mood"] == "unsure" and "parent_id" not in draft
    assert channel.get_draft("u2", parent_id="plan")["draft"]["message"]["text"] == "a reply"
    channel.create_draft({"text": "a whole thought"}, "u2")
    assert channel.get_draft("u2")["draft"]["message"]["text"] == "a whole thought", "saving again replaces it"

    drafts = client.query_drafts("u2")["drafts"]
    assert [d["message"]["text"] for d in drafts] == ["a whole thought", "a reply"], "newest first"
    assert [d["message"]["text"] for d in client.query_drafts("u2", options={"limit": 1})["drafts"]] == ["a whole thought"]

    channel.send_message({"text": "a whole thought"}, "u2")
    refused(lambda: channel.get_draft("u2"), 404, 16, "user u2 has no draft in channel messaging:general")
    assert channel.get_draft("u2", parent_id="plan")["draft"], "the thread's draft stays"
    channel.delete_draft("u2", parent_id="plan")
    assert client.query_drafts("u2")["drafts"] == []


def test_bad_drafts_are_refused(server, client, channel):
    refused(lambda: channel.create_draft({"text": "x"}, "outsider"), 400, 4, "user outsider is not a member of channel messaging:general")
    refused(lambda: channel.create_draft({"text": "x", "parent_id": "ghost"}, "u2"), 404, 16, "message with id ghost does not exist")
    refused(lambda: client.post("channels/messaging/general/draft", data={"user_id": "u2"}), 400, 4, "message is a required field")
    refused(lambda: channel.delete_draft("u2"), 404, 16, "user u2 has no draft in channel messaging:general")
    refused(lambda: client.query_drafts("u2", filter={"text": "x"}), 400, 4, "filter.text is not supported by the dev server")
    assert client.query_drafts("u2")["drafts"] == []
