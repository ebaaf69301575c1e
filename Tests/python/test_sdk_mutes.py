"""The official Python SDK's mutes of users and channels against the dev server."""

import asyncio
import json

from websockets.asyncio.client import connect

from conftest import refused
from test_websocket import connect_url


def muted(server, client, user_id):
    """The user's mutes as their next connection's `me` lists them: user ids and channel cids."""
    async def health_check():
        async with connect(connect_url(server, client.create_token(user_id), user_id)) as socket:
            return json.loads(await socket.recv())["me"]
    me = asyncio.run(health_check())
    return [m["target"]["id"] for m in me["mutes"]], [m["channel"]["cid"] for m in me["channel_mutes"]]


def test_mute_and_unmute_users_and_channels(server, client, channel):
    client.upsert_user({"id": "spammer"})
    response = client.mute_user("spammer", "u2")
    assert response["mute"]["user"]["id"] == "u2" and response["mute"]["target"]["id"] == "spammer"
    assert response["mute"]["expires"] is None and response["own_user"]["mutes"][0]["target"]["id"] == "spammer"
    several = client.mute_users(["bot-1", "outsider"], "u2", timeout=60)
    assert [m["target"]["id"] for m in several["mutes"]] == ["bot-1", "outsider"] and several["mutes"][0]["expires"]
    muting = channel.mute("u2", expiration=3_600_000)
    assert muting["channel_mute"]["channel"]["cid"] == "messaging:general" and muting["channel_mute"]["expires"]
    assert muted(server, client, "u2") == (["spammer", "bot-1", "outsider"], ["messaging:general"])

    client.unmute_user("spammer", "u2")
    client.unmute_users(["outsider"], "u2")
    channel.unmute("u2")
    assert muted(server, client, "u2") == (["bot-1"], [])


def test_bad_mutes_are_refused(server, client, channel):
    refused(lambda: client.mute_user("u2", "u2"), 400, 4, "user u2 cannot mute themselves")
    refused(lambda: client.mute_user("ghost", "u2"), 404, 16, "user ghost does not exist")
    refused(lambda: client.mute_user("bot-1", "u2", timeout=0), 400, 4, "timeout must be a positive whole number of minutes")
    refused(lambda: client.post("moderation/mute", data={"user_id": "u2"}), 400, 4,
            "either target_id (an id) or target_ids (an array of ids) is required, not both")
    refused(lambda: channel.mute("outsider"), 403, 17, "user outsider is not a member of channel messaging:general")
    refused(lambda: client.post("moderation/mute/channel", data={"user_id": "u2", "channel_cid": "general"}), 400, 4,
            "general is not a channel id (type:id)")
    assert muted(server, client, "u2") == ([], [])
