"""The official Python SDK's hide and show of channels against the dev server."""

import asyncio
import json

import requests
from websockets.asyncio.client import connect

from conftest import API_KEY, refused, user_headers
from test_websocket import connect_url


def listed(client, user_id, **filters):
    """The cids `user_id`'s channel query lists."""
    channels = client.query_channels({"members": {"$in": [user_id]}, **filters}, user_id=user_id)["channels"]
    return [state["channel"]["cid"] for state in channels]


def hide_heard(server, client, user_id, action):
    """The events `user_id`'s connection hears while `action` runs (until channel.hidden or channel.visible)."""
    async def watch():
        async with connect(connect_url(server, client.create_token(user_id), user_id)) as socket:
            assert json.loads(await socket.recv())["type"] == "health.check"
            await asyncio.to_thread(action)
            async with asyncio.timeout(5):  # one deadline: health checks come every second
                while True:
                    event = json.loads(await socket.recv())
                    if event["type"] in ("channel.hidden", "channel.visible"):
                        return event
    return asyncio.run(watch())


def test_hide_leaves_a_channel_out_of_one_members_list_until_shown_or_a_new_message(server, client, channel):
    lab = client.channel("messaging", "lab")
    lab.create("bot-1")
    lab.add_members(["bot-1", "u2"])
    assert sorted(listed(client, "u2")) == ["messaging:general", "messaging:lab"]

    event = hide_heard(server, client, "u2", lambda: lab.hide("u2"))
    assert event["cid"] == "messaging:lab" and event["user"]["id"] == "u2" and event["clear_history"] is False
    assert event["channel"]["hidden"] is True
    assert listed(client, "u2") == ["messaging:general"]
    assert listed(client, "u2", hidden=True) == ["messaging:lab"]
    assert sorted(listed(client, "bot-1")) == ["messaging:general", "messaging:lab"], "hidden for u2 alone"
    state = client.query_channels({"cid": "messaging:lab"}, user_id="u2", hidden=True)
    assert state["channels"] == [], "the query's options are not filters"
    as_u2 = requests.post(server.url(f"/channels/messaging/lab/query?api_key={API_KEY}"), headers=user_headers(client, "u2"),
                          data=json.dumps({"state": True})).json()
    assert as_u2["hidden"] is True and as_u2["channel"]["hidden"] is True

    lab.send_message({"text": "news"}, "bot-1")
    assert sorted(listed(client, "u2")) == ["messaging:general", "messaging:lab"], "a new message shows it again"

    lab.hide("u2")
    event = hide_heard(server, client, "u2", lambda: lab.show("u2"))
    assert event["type"] == "channel.visible" and event["channel"]["hidden"] is False
    assert sorted(listed(client, "u2")) == ["messaging:general", "messaging:lab"]


def test_hide_with_clear_history_takes_the_messages_so_far_out_of_what_the_member_reads(server, client, channel):
    channel.send_message({"id": "old", "text": "before"}, "bot-1")
    answer = requests.post(server.url(f"/channels/messaging/general/hide?api_key={API_KEY}"), headers=user_headers(client, "u2"),
                           data=json.dumps({"clear_history": True}))
    assert answer.status_code == 201, answer.text
    channel.send_message({"id": "new", "text": "after"}, "bot-1")
    as_u2 = requests.post(server.url(f"/channels/messaging/general/query?api_key={API_KEY}"), headers=user_headers(client, "u2"),
                          data=json.dumps({"state": True})).json()
    assert [m["id"] for m in as_u2["messages"]] == ["new"] and as_u2["hidden"] is False, "the new message showed it again"
    assert [m["id"] for m in channel.query()["messages"]] == ["old", "new"], "others still read the whole history"


def test_bad_hides_are_refused(server, client, channel):
    refused(lambda: client.channel("messaging", "ghost").hide("u2"), 404, 16, "channel messaging:ghost does not exist")
    refused(lambda: channel.hide("outsider"), 400, 4, "user outsider is not a member of channel messaging:general")
    refused(lambda: client.post("channels/messaging/general/hide", data={}), 400, 4, "either user or user_id must be provided")
    refused(lambda: client.post("channels/messaging/general/hide", data={"user_id": "u2", "clear_history": "yes"}), 400, 4,
            "clear_history must be true or false, not string")
    refused(lambda: client.query_channels({"hidden": "yes"}, user_id="u2"), 400, 4, "filter on hidden must be true or false")
    assert sorted(listed(client, "u2")) == ["messaging:general"], "nothing refused hid anything"
