"""The WebSocket side, checked with an independent client: the `websockets` package."""

import asyncio
import json
import time
import urllib.parse

import pytest
import requests
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from conftest import API_KEY, refused, user_headers


def connect_url(server, token, user_id, api_key=API_KEY):
    query = urllib.parse.urlencode({
        "api_key": api_key,
        "authorization": token,
        "stream-auth-type": "jwt",
        "json": json.dumps({"user_id": user_id, "user_details": {"id": user_id, "name": "Socket User", "team": "blue"},
                            "server_determines_connection_id": True}),
    })
    return server.base_url.replace("http://", "ws://") + "/connect?" + query


async def next_event(socket, wanted=None, timeout=10):
    deadline = time.monotonic() + timeout
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise AssertionError(f"no {wanted} event within {timeout} s")
        event = json.loads(await asyncio.wait_for(socket.recv(), remaining))
        if wanted is None or event["type"] == wanted:
            return event


def run(coroutine):
    return asyncio.run(coroutine)


def test_first_frame_is_health_check_with_connection_id_and_me(server, client, channel):
    async def scenario():
        async with connect(connect_url(server, client.create_token("u2"), "u2")) as socket:
            first = json.loads(await socket.recv())
            assert first["type"] == "health.check"
            assert first["connection_id"]
            assert first["me"]["id"] == "u2"
            assert first["me"]["team"] == "blue", "user_details are stored on connect"
            for key in ("role", "created_at", "updated_at", "online", "unread_count", "devices"):
                assert key in first["me"], key
            periodic = await next_event(socket, "health.check", timeout=5)
            assert periodic["connection_id"] == first["connection_id"]
    run(scenario())


def test_credentials_in_headers_work_too(server, client, channel):
    async def scenario():
        query = urllib.parse.urlencode({"api_key": API_KEY, "json": json.dumps({"user_id": "u2"})})
        url = server.base_url.replace("http://", "ws://") + "/connect?" + query
        headers = {"Authorization": client.create_token("u2"), "Stream-Auth-Type": "jwt"}
        async with connect(url, additional_headers=headers) as socket:
            assert json.loads(await socket.recv())["type"] == "health.check"
    run(scenario())


def test_watch_and_receive_message_new_with_attachments(server, client, channel):
    async def scenario():
        async with connect(connect_url(server, client.create_token("u2"), "u2")) as socket:
            connection_id = json.loads(await socket.recv())["connection_id"]
            watched = requests.post(
                server.url(f"/channels/messaging/general/query?api_key={API_KEY}&connection_id={connection_id}"),
                json={"state": True, "watch": True}, headers=user_headers(client, "u2"))
            assert watched.status_code == 201
            attachment = {"type": "workout", "workout-type": "run", "workout-distance-meters": 5000}
            await asyncio.to_thread(channel.send_message, {"id": "ws-1", "text": "go", "attachments": [attachment]}, "bot-1")
            event = await next_event(socket, "message.new")
            assert event["cid"] == "messaging:general"
            assert event["message"]["id"] == "ws-1"
            assert event["message"]["attachments"] == [attachment]
            assert event["user"]["id"] == "bot-1"
    run(scenario())


def test_members_not_watching_get_notification_message_new(server, client, channel):
    async def scenario():
        async with connect(connect_url(server, client.create_token("u2"), "u2")) as socket:
            await socket.recv()
            await asyncio.to_thread(channel.send_message, {"id": "n-1", "text": "psst"}, "bot-1")
            event = await next_event(socket, "notification.message_new")
            assert event["message"]["id"] == "n-1" and event["channel"]["cid"] == "messaging:general"
    run(scenario())


def test_ping_frames_and_client_health_checks_are_answered(server, client, channel):
    async def scenario():
        async with connect(connect_url(server, client.create_token("u2"), "u2"), ping_interval=None) as socket:
            first = json.loads(await socket.recv())
            pong = await socket.ping()
            await asyncio.wait_for(pong, 5)
            answer = json.loads(await asyncio.wait_for(socket.recv(), 0.9))
            assert answer["type"] == "health.check" and answer["connection_id"] == first["connection_id"]
            await socket.send(json.dumps([{"type": "health.check", "client_id": "u2--1"}]))
            answer = json.loads(await asyncio.wait_for(socket.recv(), 0.9))
            assert answer["type"] == "health.check"
            await socket.send("this is not json")
            await socket.send(json.dumps({"type": "health.check"}))
            answer = json.loads(await asyncio.wait_for(socket.recv(), 0.9))
            assert answer["type"] == "health.check", "junk frames are ignored, the connection stays up"
    run(scenario())


@pytest.mark.parametrize("case", ["wrong-signature", "expired", "wrong-key", "server-token", "other-user"])
def test_bad_credentials_get_connection_error_and_close_1000(server, client, case):
    from stream_chat import StreamChat
    token, user_id, api_key = client.create_token("u2"), "u2", API_KEY
    if case == "wrong-signature":
        token = StreamChat(API_KEY, "another-secret-of-at-least-thirty-two-bytes").create_token("u2")
    elif case == "expired":
        token = client.create_token("u2", exp=int(time.time()) - 60)
    elif case == "wrong-key":
        api_key = "nope"
    elif case == "server-token":
        token = client.auth_token
    elif case == "other-user":
        user_id = "someone-else"
    expected = {"wrong-signature": 43, "expired": 40, "wrong-key": 2, "server-token": 5, "other-user": 5}[case]

    async def scenario():
        async with connect(connect_url(server, token, user_id, api_key)) as socket:
            event = json.loads(await socket.recv())
            assert event["type"] == "connection.error"
            assert event["error"]["code"] == expected
            assert event["error"]["StatusCode"] == 401
            with pytest.raises(ConnectionClosed) as closed:
                await socket.recv()
            assert closed.value.rcvd.code == 1000
    run(scenario())


def test_sync_returns_what_was_missed_while_disconnected(server, client, channel):
    async def scenario():
        async with connect(connect_url(server, client.create_token("u2"), "u2")) as socket:
            connection_id = json.loads(await socket.recv())["connection_id"]
            requests.post(server.url(f"/channels/messaging/general/query?api_key={API_KEY}&connection_id={connection_id}"),
                          json={"watch": True, "state": True}, headers=user_headers(client, "u2"))
            await asyncio.to_thread(channel.send_message, {"id": "before", "text": "seen"}, "bot-1")
            last_seen = (await next_event(socket, "message.new"))["created_at"]
        for index in range(3):
            channel.send_message({"id": f"missed-{index}", "text": f"missed {index}"}, "bot-1")
        synced = requests.post(server.url(f"/sync?api_key={API_KEY}"),
                               json={"channel_cids": ["messaging:general"], "last_sync_at": last_seen},
                               headers=user_headers(client, "u2"))
        assert synced.status_code == 201
        events = [event for event in synced.json()["events"] if event["type"] == "message.new"]
        assert [event["message"]["id"] for event in events] == ["missed-0", "missed-1", "missed-2"]
        forbidden = requests.post(server.url(f"/sync?api_key={API_KEY}"),
                                  json={"channel_cids": ["messaging:general"], "last_sync_at": last_seen},
                                  headers=user_headers(client, "outsider"))
        assert forbidden.status_code == 403
    run(scenario())


def test_channel_events_name_the_token_user_not_one_the_body_claims(server, client, channel):
    """A user token acts as its own user: `user_id` in a PATCH or truncate body cannot make the
    channel.updated / channel.truncated event name someone else (only server calls may)."""
    async def scenario():
        async with connect(connect_url(server, client.create_token("u2"), "u2")) as socket:
            connection_id = json.loads(await socket.recv())["connection_id"]
            requests.post(server.url(f"/channels/messaging/general/query?api_key={API_KEY}&connection_id={connection_id}"),
                          json={"watch": True, "state": True}, headers=user_headers(client, "u2"), timeout=10)
            as_creator = user_headers(client, "bot-1")
            patched = requests.patch(server.url(f"/channels/messaging/general?api_key={API_KEY}"),
                                     json={"set": {"color": "green"}, "user_id": "u2"}, headers=as_creator, timeout=10)
            assert patched.ok, patched.text
            updated = await next_event(socket, "channel.updated")
            assert updated["user"]["id"] == "bot-1" and updated["channel"]["color"] == "green"

            truncated = requests.post(server.url(f"/channels/messaging/general/truncate?api_key={API_KEY}"),
                                      json={"user": {"id": "u2"}}, headers=as_creator, timeout=10)
            assert truncated.ok, truncated.text
            assert (await next_event(socket, "channel.truncated"))["user"]["id"] == "bot-1"

            # With a server token the body says who acts.
            await asyncio.to_thread(channel.truncate, user_id="u2")
            assert (await next_event(socket, "channel.truncated"))["user"]["id"] == "u2"
    run(scenario())


async def next_frame_other_than_health_check(socket, timeout=10):
    # One deadline for all frames: health checks alone would otherwise keep it waiting forever.
    async with asyncio.timeout(timeout):
        while True:
            event = json.loads(await socket.recv())
            if event["type"] != "health.check":
                return event


def watch(server, client, user_id, cid, connection_id, action="query"):
    """`query` with watching, or `stop-watching`, for `connection_id`, as `user_id`."""
    channel_type, channel_id = cid.split(":")
    url = server.url(f"/channels/{channel_type}/{channel_id}/{action}?api_key={API_KEY}&connection_id={connection_id}")
    body = {"watch": True, "state": True} if action == "query" else {}
    return requests.post(url, json=body, headers=user_headers(client, user_id), timeout=10)


def side_channel(client, member):
    """A channel `member` belongs to: its messages come to them as notification.message_new,
    which shows in order whether anything of another channel arrived before."""
    side = client.channel("messaging", "side")
    side.create("bot-1")
    side.add_members([member])
    return side


def test_a_refused_watch_leaves_the_connection_not_watching(server, client, channel):
    """A non-member's watch of a private channel is refused (403) and gets none of its events:
    before the fix the query failed but its connection watched the channel all the same."""
    side = side_channel(client, "outsider")

    async def scenario():
        async with connect(connect_url(server, client.create_token("outsider"), "outsider")) as socket:
            connection_id = json.loads(await socket.recv())["connection_id"]
            refusal = watch(server, client, "outsider", "messaging:general", connection_id)
            assert refusal.status_code == 403
            assert refusal.json()["message"].endswith('"user outsider is not a member of channel messaging:general"')
            await asyncio.to_thread(channel.send_message, {"id": "secret-1", "text": "members only"}, "bot-1")
            await asyncio.to_thread(side.send_message, {"id": "side-1", "text": "for outsider"}, "bot-1")
            first = await next_frame_other_than_health_check(socket)
            assert (first["type"], first["message"]["id"]) == ("notification.message_new", "side-1")
    run(scenario())


def test_a_removed_member_stops_getting_the_channel_events(server, client, channel):
    side = side_channel(client, "u2")

    async def scenario():
        async with connect(connect_url(server, client.create_token("u2"), "u2")) as socket:
            connection_id = json.loads(await socket.recv())["connection_id"]
            assert watch(server, client, "u2", "messaging:general", connection_id).status_code == 201
            await asyncio.to_thread(channel.remove_members, ["u2"])
            removed = await next_frame_other_than_health_check(socket)
            assert (removed["type"], removed["member"]["user_id"]) == ("member.removed", "u2"), "the removal itself still reaches them"
            await asyncio.to_thread(channel.send_message, {"id": "after-1", "text": "not for u2"}, "bot-1")
            await asyncio.to_thread(side.send_message, {"id": "side-1", "text": "for u2"}, "bot-1")
            first = await next_frame_other_than_health_check(socket)
            assert (first["type"], first["message"]["id"]) == ("notification.message_new", "side-1")
    run(scenario())


def test_stop_watching_turns_channel_events_into_member_notifications(server, client, channel):
    async def scenario():
        async with connect(connect_url(server, client.create_token("u2"), "u2")) as socket:
            connection_id = json.loads(await socket.recv())["connection_id"]
            assert watch(server, client, "u2", "messaging:general", connection_id).status_code == 201
            await asyncio.to_thread(channel.send_message, {"id": "w-1", "text": "watched"}, "bot-1")
            assert (await next_event(socket, "message.new"))["message"]["id"] == "w-1"

            as_someone_else = watch(server, client, "bot-1", "messaging:general", connection_id, "stop-watching")
            assert as_someone_else.status_code == 400
            assert f"connection_id {connection_id} is not an open WebSocket connection of this user" in as_someone_else.json()["message"]
            missing = requests.post(server.url(f"/channels/messaging/general/stop-watching?api_key={API_KEY}"), json={},
                                    headers=user_headers(client, "u2"), timeout=10)
            assert missing.status_code == 400 and "connection_id is required" in missing.json()["message"]

            stopped = watch(server, client, "u2", "messaging:general", connection_id, "stop-watching")
            assert stopped.status_code == 201, stopped.text
            await asyncio.to_thread(channel.send_message, {"id": "w-2", "text": "no longer watched"}, "bot-1")
            event = await next_frame_other_than_health_check(socket)
            assert (event["type"], event["message"]["id"]) == ("notification.message_new", "w-2")
    run(scenario())


def test_user_custom_events_reach_only_their_user(server, client, channel):
    async def scenario():
        async with connect(connect_url(server, client.create_token("u2"), "u2")) as ann, \
                connect(connect_url(server, client.create_token("bot-1"), "bot-1")) as bot:
            await next_event(ann, "health.check")
            await next_event(bot, "health.check")
            await asyncio.to_thread(client.send_user_custom_event, "u2", {"type": "export.ready", "file": "runs.csv"})
            await asyncio.to_thread(client.send_user_custom_event, "bot-1", {"type": "marker"})
            event = await next_event(ann, "export.ready")
            assert event["file"] == "runs.csv" and event["user"]["id"] == "u2" and event["created_at"] and "cid" not in event
            frame = await next_event(bot)
            while frame["type"] == "health.check":
                frame = await next_event(bot)
            assert frame["type"] == "marker", "the other user hears nothing before its own event"

    run(scenario())
    as_user = requests.post(server.url(f"/users/u2/event?api_key={API_KEY}"), json={"event": {"type": "export.ready"}},
                            headers=user_headers(client, "u2"))
    assert as_user.status_code == 403 and "user events can only be sent with a server token" in as_user.json()["message"]
    refused(lambda: client.send_user_custom_event("ghost", {"type": "export.ready"}), 404, 16, "user ghost does not exist")
    refused(lambda: client.send_user_custom_event("u2", {"type": "message.new"}), 400, 18,
            "event type message.new cannot be sent by clients")
