"""The official Python SDK's read state and unread counts against the dev server."""

import asyncio
import json

import requests
from websockets.asyncio.client import connect

from conftest import API_KEY, refused, user_headers
from test_websocket import connect_url


def test_unread_counts_follow_messages_reads_and_unreads(server, client, channel):
    for index in range(3):
        channel.send_message({"id": f"m-{index}", "text": f"message {index}"}, "bot-1")
    channel.send_message({"id": "quiet", "text": "shh", "silent": True}, "bot-1")
    channel.send_message({"id": "mine", "text": "from u2"}, "u2")
    counts = client.unread_counts("u2")
    assert counts["total_unread_count"] == 0, "posting read the channel for u2"
    channel.send_message({"id": "m-3", "text": "message 3"}, "bot-1")
    counts = client.unread_counts("u2")
    assert counts["total_unread_count"] == 1
    assert counts["channels"] == [{"channel_id": "messaging:general", "unread_count": 1, "last_read": counts["channels"][0]["last_read"]}]
    assert counts["channel_type"] == [{"channel_type": "messaging", "channel_count": 1, "unread_count": 1}]

    channel.mark_unread("u2", message_id="m-1")
    reads = {read["user"]["id"]: read for read in channel.query()["read"]}
    assert reads["u2"]["unread_messages"] == 3 and reads["u2"]["last_read_message_id"] == "m-0", "m-1, m-2 and m-3; not u2's own"
    assert reads["bot-1"]["unread_messages"] == 0, "bot-1 posted m-3 after u2's message, which read it"

    async def health_check():
        async with connect(connect_url(server, client.create_token("u2"), "u2")) as socket:
            return json.loads(await socket.recv())
    me = asyncio.run(health_check())["me"]
    assert me["total_unread_count"] == 3 and me["unread_count"] == 3 and me["unread_channels"] == 1

    batch = client.unread_counts_batch(["u2", "bot-1"])["counts_by_user"]
    assert batch["u2"]["total_unread_count"] == 3 and batch["bot-1"]["total_unread_count"] == 0
    channel.mark_read("u2", message_id="m-2")
    assert client.unread_counts("u2")["total_unread_count"] == 1, "read up to m-2"
    client.mark_all_read("u2")
    assert client.unread_counts("u2")["total_unread_count"] == 0


def test_bad_unread_requests_are_refused(server, client, channel):
    channel.send_message({"id": "m-0", "text": "hello"}, "bot-1")
    refused(lambda: channel.mark_unread("u2"), 400, 4, "message_id is required")
    refused(lambda: channel.mark_unread("u2", message_id="ghost"), 404, 16, "message with id ghost does not exist")
    refused(lambda: channel.mark_unread("outsider", message_id="m-0"), 400, 4, "user outsider is not a member of channel messaging:general")
    refused(lambda: client.unread_counts("ghost"), 404, 16, "user ghost does not exist")
    refused(lambda: client.unread_counts_batch([]), 400, 4, "user_ids must be an array of 1 to 100 user ids")
    refused(lambda: client.unread_counts_batch(["u2", "ghost"]), 400, 4, "user_ids names users that do not exist: ghost")
    as_user = requests.get(server.url(f"/unread?user_id=bot-1&api_key={API_KEY}"), headers=user_headers(client, "u2"))
    assert as_user.status_code == 403 and "user u2 may only read their own unread counts" in as_user.json()["message"]
    own = requests.get(server.url(f"/unread?api_key={API_KEY}"), headers=user_headers(client, "u2"))
    assert own.status_code == 200 and own.json()["total_unread_count"] == 1
    assert client.unread_counts("u2")["total_unread_count"] == 1, "nothing refused changed it"
