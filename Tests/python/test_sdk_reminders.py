"""The official Python SDK's message reminders (create_reminder, update_reminder, delete_reminder,
query_reminders) against the dev server, and `notification.reminder_due` when one comes due."""

import asyncio
import datetime
import json
import time

from websockets.asyncio.client import connect

from conftest import DevServerProcess, refused, wait_for
from test_webhooks import Receiver
from test_websocket import connect_url


def utc(seconds_from_now: float) -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=seconds_from_now)


def test_reminders_are_kept_per_user_and_message(server, client, channel):
    for id in ("m1", "m2", "m3"):
        channel.send_message({"id": id, "text": f"message {id}"}, "bot-1")

    reminder = client.create_reminder("m1", "u2", utc(3600))["reminder"]
    assert reminder["message_id"] == "m1" and reminder["user_id"] == "u2" and reminder["channel_cid"] == "messaging:general"
    assert reminder["message"]["text"] == "message m1" and reminder["user"]["id"] == "u2"
    assert reminder["remind_at"].endswith("Z") and reminder["created_at"]
    saved = client.create_reminder("m2", "u2")["reminder"]
    assert saved["remind_at"] is None, "without a time, the message is saved for later"
    client.create_reminder("m3", "u2", utc(60))
    client.create_reminder("m1", "bot-1", utc(120))

    def listed(**options):
        return [r["message_id"] for r in client.query_reminders("u2", **options)["reminders"]]

    assert listed() == ["m3", "m1", "m2"], "soonest first, saved for later last"
    assert listed(sort=[{"field": "created_at", "direction": -1}]) == ["m3", "m2", "m1"]
    assert listed(filter_conditions={"remind_at": {"$exists": False}}) == ["m2"]
    assert listed(filter_conditions={"remind_at": {"$gt": utc(600).strftime("%Y-%m-%dT%H:%M:%SZ")}}) == ["m1"]
    assert listed(filter_conditions={"message_id": {"$in": ["m1", "m2"]}}) == ["m1", "m2"]
    assert listed(filter_conditions={"channel_cid": "messaging:other"}) == []
    page = client.query_reminders("u2", limit=2)
    assert [r["message_id"] for r in page["reminders"]] == ["m3", "m1"] and page["next"]
    assert listed(limit=2, next=page["next"]) == ["m2"]
    assert [r["message_id"] for r in client.query_reminders("bot-1")["reminders"]] == ["m1"], "each user has their own"

    updated = client.update_reminder("m2", "u2", utc(30))["reminder"]
    assert updated["remind_at"] is not None and updated["updated_at"] >= updated["created_at"]
    assert client.update_reminder("m1", "u2")["reminder"]["remind_at"] is None, "an update without a time saves it for later"
    client.delete_reminder("m3", "u2")
    assert listed() == ["m2", "m1"]

    # A message deleted for good takes its reminders with it; a soft-deleted one keeps them.
    client.delete_message("m2")
    assert listed() == ["m2", "m1"]
    client.delete_message("m1", hard=True)
    assert listed() == ["m2"] and client.query_reminders("bot-1")["reminders"] == []


def test_bad_reminders_are_refused(server, client, channel):
    channel.send_message({"id": "m1", "text": "hello"}, "bot-1")
    client.create_reminder("m1", "u2")
    refused(lambda: client.create_reminder("m1", "u2"), 400, 4,
            "user u2 already has a reminder for message m1; change it with PATCH /messages/m1/reminders")
    refused(lambda: client.create_reminder("ghost", "u2"), 404, 16, "message with id ghost does not exist")
    refused(lambda: client.create_reminder("m1", "outsider"), 400, 4, "user outsider is not a member of channel messaging:general")
    refused(lambda: client.post("messages/m1/reminders", data={"user_id": "bot-1", "remind_at": "tomorrow"}), 400, 4,
            "remind_at must be an RFC 3339 date")
    refused(lambda: client.post("messages/m1/reminders", data={}), 400, 4, "either user or user_id must be provided")
    refused(lambda: client.update_reminder("m1", "bot-1", utc(60)), 404, 16, "user bot-1 has no reminder for message m1")
    refused(lambda: client.delete_reminder("m1", "bot-1"), 404, 16, "user bot-1 has no reminder for message m1")
    refused(lambda: client.query_reminders("u2", filter_conditions={"text": "x"}), 400, 4,
            "filter.text is not supported by the dev server")
    refused(lambda: client.query_reminders("u2", filter_conditions={"remind_at": {"$lt": "soon"}}), 400, 4,
            "remind_at $lt needs an RFC 3339 date")
    client.delete_message("m1")
    channel.send_message({"id": "m2", "text": "again"}, "bot-1")
    client.delete_message("m2")
    refused(lambda: client.create_reminder("m2", "bot-1"), 400, 4, "message m2 is deleted; it cannot have a reminder")
    assert [r["message_id"] for r in client.query_reminders("u2")["reminders"]] == ["m1"], "nothing refused was kept"


def test_a_due_reminder_reaches_its_user_once(server, client, channel):
    channel.send_message({"id": "m1", "text": "call the gym"}, "bot-1")

    async def heard():
        async with connect(connect_url(server, client.create_token("u2"), "u2")) as socket:
            assert json.loads(await socket.recv())["type"] == "health.check"
            await asyncio.to_thread(lambda: client.create_reminder("m1", "u2", utc(1.5)))
            # A later reminder set afterwards does not delay the earlier one.
            await asyncio.to_thread(lambda: client.create_reminder("m1", "bot-1", utc(30)))
            seen = []
            # One deadline for them all: health checks come every second on this server.
            async with asyncio.timeout(10):
                while True:
                    event = json.loads(await socket.recv())
                    if event["type"] != "health.check":
                        seen.append(event["type"])
                    if event["type"] == "notification.reminder_due":
                        return seen, event
    seen, event = asyncio.run(heard())
    assert seen == ["reminder.created", "notification.reminder_due"], seen
    assert event["cid"] == "messaging:general" and event["message_id"] == "m1" and event["user_id"] == "u2"
    assert event["reminder"]["message"]["text"] == "call the gym"
    assert [r["message_id"] for r in client.query_reminders("u2", filter_conditions={"remind_at": {"$lte": utc(0).isoformat()}})["reminders"]] == ["m1"], \
        "a due reminder stays until deleted"


def test_a_reminder_due_while_the_server_was_stopped_is_sent_once_at_the_next_start(tmp_path):
    receiver = Receiver()
    process = DevServerProcess(tmp_path / "data")
    try:
        client = process.start().client()
        client.update_app_settings(webhook_url=receiver.url, webhook_events=["notification.reminder_due"])
        client.upsert_users([{"id": "bot-1"}, {"id": "u2"}])
        channel = client.channel("messaging", "general")
        channel.create("bot-1")
        channel.add_members(["u2"])
        channel.send_message({"id": "m1", "text": "later"}, "bot-1")
        client.create_reminder("m1", "u2", utc(2))
        process.stop()
        time.sleep(2.5)

        def due():
            return [json.loads(body) for _, body in receiver.events() if json.loads(body)["type"] == "notification.reminder_due"]
        assert due() == [], "nothing came due while it ran"
        process.start()
        wait_for(lambda: due())
        assert due()[0]["message_id"] == "m1" and due()[0]["user_id"] == "u2"
        process.stop()
        process.start()
        time.sleep(1)
        assert len(due()) == 1, "a reminder that was sent is not sent again"
    finally:
        process.stop()
        receiver.stop()
