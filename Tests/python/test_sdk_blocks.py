"""The official Python SDK's block_user, unblock_user and get_blocked_users against the dev server."""

import json

import requests

from conftest import API_KEY, refused, user_headers


def listed(client, user_id, **filters):
    channels = client.query_channels({"members": {"$in": [user_id]}, **filters}, user_id=user_id)["channels"]
    return {state["channel"]["cid"]: state["channel"].get("blocked", False) for state in channels}


def test_a_block_hides_the_one_to_one_channel_and_stops_the_blocked_users_messages_there(server, client, channel):
    client.upsert_users([{"id": "troll"}, {"id": "cem"}])
    direct = client.channel("messaging", "u2-troll")
    direct.create("u2")
    direct.add_members(["u2", "troll"])
    channel.add_members(["troll"])
    direct.send_message({"id": "d-1", "text": "hi"}, "troll")
    assert client.unread_counts("u2")["total_unread_count"] == 1

    answer = client.block_user("troll", "u2")
    assert answer["blocked_by_user_id"] == "u2" and answer["blocked_user_id"] == "troll" and answer["created_at"]
    assert listed(client, "u2") == {"messaging:general": False}, "the one-to-one channel is hidden for u2"
    assert listed(client, "u2", hidden=True) == {"messaging:u2-troll": True}, "listed as blocked among the hidden"
    assert client.unread_counts("u2")["total_unread_count"] == 0, "a blocked user's messages do not count"
    refused(lambda: direct.send_message({"text": "hello?"}, "troll"), 403, 17,
            "user u2 blocked user troll, who can no longer post in their one-to-one channel messaging:u2-troll")
    channel.send_message({"id": "g-1", "text": "still here"}, "troll")
    assert [m["id"] for m in channel.query()["messages"]] == ["g-1"], "group channels are unaffected"

    group = client.channel("messaging", "party")
    group.create("troll")
    group.update({"name": "Party"})
    client.post("channels/messaging/party", data={"add_members": ["u2", "cem"], "user_id": "troll"})
    assert sorted(m["user_id"] for m in group.query()["members"]) == ["cem"], "the blocked user cannot add u2"

    blocks = client.get_blocked_users("u2")["blocks"]
    assert [(b["user_id"], b["blocked_user_id"]) for b in blocks] == [("u2", "troll")] and blocks[0]["blocked_user"]["id"] == "troll"
    as_u2 = requests.get(server.url(f"/users/block?api_key={API_KEY}"), headers=user_headers(client, "u2")).json()
    assert [b["blocked_user_id"] for b in as_u2["blocks"]] == ["troll"]

    client.unblock_user("troll", "u2")
    assert client.get_blocked_users("u2")["blocks"] == []
    direct.send_message({"id": "d-2", "text": "sorry"}, "troll")
    assert listed(client, "u2")["messaging:u2-troll"] is False, "unblocked, a new message shows the channel again"
    client.unblock_user("troll", "u2")


def test_bad_blocks_are_refused(server, client, channel):
    refused(lambda: client.block_user("u2", "u2"), 400, 4, "user u2 cannot block themselves")
    refused(lambda: client.block_user("ghost", "u2"), 404, 16, "user ghost does not exist")
    refused(lambda: client.post("users/block", data={"user_id": "u2"}), 400, 4, "blocked_user_id is required")
    refused(lambda: client.post("users/block", data={"blocked_user_id": "bot-1"}), 400, 4, "either user or user_id must be provided")
    assert client.get_blocked_users("u2")["blocks"] == []
