"""The official Python SDK's pins, partial user updates and many-message reads against the dev server."""

import datetime
import json

import requests

from conftest import API_KEY, refused, user_headers, wait_for


def in_seconds(seconds):
    moment = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=seconds)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def pinned_ids(channel):
    return [message["id"] for message in channel.query()["pinned_messages"]]


def test_pin_message_records_who_and_when_and_the_channel_lists_pins(client, channel):
    channel.send_message({"id": "rules", "text": "house rules"}, "bot-1")
    channel.send_message({"id": "meetup", "text": "meet at 6"}, "bot-1")
    assert client.get_message("rules")["message"]["pinned"] is False

    pinned = client.pin_message("rules", "u2")["message"]
    assert pinned["pinned"] is True and pinned["pinned_by"]["id"] == "u2" and pinned["pinned_by"]["name"] == "Ann"
    assert pinned["pinned_at"] and pinned["pin_expires"] is None
    short = client.update_message_partial("meetup", {"set": {"pinned": True, "pin_expires": in_seconds(3)}}, "bot-1")["message"]
    assert short["pinned_by"]["id"] == "bot-1" and short["pin_expires"]
    assert pinned_ids(channel) == ["meetup", "rules"]

    edited = client.update_message({"id": "rules", "text": "house rules (v2)", "user_id": "bot-1"})["message"]
    assert edited["pinned"] is True and edited["pinned_at"] == pinned["pinned_at"], "an edit that leaves the pin out keeps it"

    wait_for(lambda: pinned_ids(channel) == ["rules"])
    assert pinned_ids(channel) == ["rules"], "an expired pin is no longer listed"
    expired = client.get_message("meetup")["message"]
    assert expired["pinned"] is False and expired["pinned_by"] is None

    unpinned = client.unpin_message("rules", "u2")["message"]
    assert unpinned["pinned"] is False and unpinned["pinned_at"] is None and unpinned["pinned_by"] is None
    assert pinned_ids(channel) == []

    sent = channel.send_message({"id": "notice", "text": "pinned from the start", "pinned": True}, "bot-1")["message"]
    assert sent["pinned"] is True and sent["pinned_by"]["id"] == "bot-1"
    client.delete_message("notice")
    assert pinned_ids(channel) == [], "a deleted message is not listed as pinned"


def test_bad_pins_are_refused_and_change_nothing(server, client, channel):
    channel.send_message({"id": "p-1", "text": "hello"}, "u2")
    # The SDK sends pin_message's integer expiration as it is; the API takes a timestamp.
    refused(lambda: client.pin_message("p-1", "u2", expiration=120), 400, 4, "pin_expires must be an RFC 3339 timestamp")
    refused(lambda: client.update_message_partial("p-1", {"set": {"pinned": "yes"}}, "u2"), 400, 4,
            "pinned must be true or false, found string")
    refused(lambda: client.update_message_partial("p-1", {"set": {"pinned": True, "pin_expires": in_seconds(-60)}}, "u2"),
            400, 4, "has passed; a pin must expire in the future")
    refused(lambda: client.update_message_partial("p-1", {"set": {"pinned": True}}, None), 400, 4,
            "pinning a message with a server token needs user or user_id")

    url = server.url(f"/messages/p-1?api_key={API_KEY}")
    as_member = requests.put(url, json={"set": {"pinned": True}}, headers=user_headers(client, "bot-1"))
    assert as_member.status_code == 201, "any member may pin a message of its channel"
    assert as_member.json()["message"]["pinned_by"]["id"] == "bot-1"
    as_outsider = requests.put(url, json={"set": {"pinned": False}}, headers=user_headers(client, "outsider"))
    assert as_outsider.status_code == 403 and "not a member" in as_outsider.json()["message"]
    pin_and_edit = requests.put(url, json={"set": {"pinned": False, "text": "mine"}}, headers=user_headers(client, "bot-1"))
    assert pin_and_edit.status_code == 403 and "may only edit their own messages" in pin_and_edit.json()["message"]
    message = client.get_message("p-1")["message"]
    assert message["text"] == "hello" and message["pinned"] is True and message["pinned_by"]["id"] == "bot-1"


def test_update_user_partial_sets_and_unsets_single_fields(client, channel):
    client.upsert_user({"id": "runner", "name": "Runner", "club": "riverside", "level": 3})
    response = client.update_user_partial({"id": "runner", "set": {"level": 4, "goal_km": 25}, "unset": ["club"]})
    user = response["users"]["runner"]
    assert user["name"] == "Runner" and user["level"] == 4 and user["goal_km"] == 25 and "club" not in user
    both = client.update_users_partial([{"id": "runner", "set": {"role": "admin"}}, {"id": "u2", "set": {"level": 1}}])["users"]
    assert both["runner"]["role"] == "admin" and both["u2"]["level"] == 1 and both["u2"]["name"] == "Ann"

    refused(lambda: client.update_user_partial({"id": "ghost", "set": {"level": 1}}), 404, 16, "user ghost does not exist")
    refused(lambda: client.update_user_partial({"id": "runner", "set": {"created_at": "2020-01-01T00:00:00Z"}}), 400, 4,
            "users[0]: created_at is a field the server owns and cannot be set or unset")
    refused(lambda: client.update_user_partial({"id": "runner"}), 400, 4, "users[0]: set or unset must name at least one field")
    refused(lambda: client.update_users_partial([{"id": "runner", "set": {"level": 1}}, {"id": "runner", "unset": ["goal_km"]}]),
            400, 4, "users[1]: user runner is listed twice")
    refused(lambda: client.update_users_partial([]), 400, 4, "users must be a non-empty array")
    after = client.query_users({"id": "runner"})["users"][0]
    assert after["level"] == 4 and after["goal_km"] == 25 and after["role"] == "admin", "refused changes change nothing"


def test_get_messages_reads_several_in_the_order_asked(server, client, channel):
    for index in range(3):
        channel.send_message({"id": f"m-{index}", "text": f"message {index}"}, "bot-1")
    other = client.channel("messaging", "other")
    other.create("bot-1")
    other.send_message({"id": "elsewhere", "text": "not here"}, "bot-1")
    read = channel.get_messages(["m-2", "missing", "m-0", "elsewhere"])["messages"]
    assert [message["id"] for message in read] == ["m-2", "m-0"]
    assert read[0]["text"] == "message 2" and read[0]["user"]["id"] == "bot-1"
    refused(lambda: channel.get_messages([f"x-{index}" for index in range(101)]), 400, 4,
            "ids names 101 messages; at most 100 are read at once")
    refused(lambda: channel.get_messages([]), 400, 4, "ids is required")
    outsider = requests.get(server.url(f"/channels/messaging/general/messages?ids=m-0&api_key={API_KEY}"),
                            headers=user_headers(client, "outsider"))
    assert outsider.status_code == 403 and "not a member" in outsider.json()["message"]


def test_pinned_messages_are_listed_sorted_and_paged(client, channel):
    for index in range(4):
        channel.send_message({"id": f"n-{index}", "text": f"notice {index}"}, "bot-1")
        client.pin_message(f"n-{index}", "bot-1")

    def pinned(**payload):
        response = client.get("channels/messaging/general/pinned_messages", params={"payload": json.dumps(payload)})
        return [message["id"] for message in response["messages"]]

    assert pinned() == ["n-3", "n-2", "n-1", "n-0"]
    assert pinned(limit=2, sort=[{"field": "pinned_at", "direction": 1}]) == ["n-0", "n-1"]
    second = client.get_message("n-1")["message"]["pinned_at"]
    assert pinned(pinned_at_after=second, sort=[{"field": "pinned_at", "direction": 1}]) == ["n-2", "n-3"]
    assert pinned(pinned_at_before_or_equal=second) == ["n-1", "n-0"]
    refused(lambda: pinned(pinned_at_before="yesterday"), 400, 4, "pinned_at_before must be an RFC 3339 timestamp")
    refused(lambda: pinned(sort=[{"field": "created_at", "direction": 1}]), 400, 4, "sort field must be one of pinned_at")
    refused(lambda: pinned(limit=0), 400, 4, "limit must be a whole number from 1 to 100")


def test_update_member_partial_and_unflag(server, client, channel):
    response = channel.update_member_partial("u2", to_set={"hat": "blue", "strikes": 1})
    assert response["channel_member"]["hat"] == "blue" and response["channel_member"]["user"]["id"] == "u2"
    response = channel.update_member_partial("u2", to_set={"color": "red"}, to_unset=["hat"])
    assert response["channel_member"]["color"] == "red" and "hat" not in response["channel_member"]
    member = channel.query_members({"id": "u2"})[0]
    assert member["color"] == "red" and member["strikes"] == 1 and member["channel_role"] == "channel_member"
    refused(lambda: channel.update_member_partial("u2", to_set={"channel_role": "channel_moderator"}), 400, 4,
            "channel_role is a field the server owns and cannot be set or unset")
    refused(lambda: channel.update_member_partial("outsider", to_set={"hat": "red"}), 404, 16,
            "user outsider is not a member of channel messaging:general")
    as_other = requests.patch(server.url(f"/channels/messaging/general/member/u2?api_key={API_KEY}"),
                              json={"set": {"hat": "green"}}, headers=user_headers(client, "bot-1"))
    assert as_other.status_code == 403 and "may only update its own membership" in as_other.json()["message"]

    channel.send_message({"id": "f-1", "text": "spam?"}, "u2")
    client.flag_message("f-1", user_id="bot-1")
    client.flag_user("u2", user_id="bot-1")
    assert client.unflag_message("f-1", user_id="bot-1")["flag"]["target_message_id"] == "f-1"
    assert client.query_message_flags({"channel_cid": "messaging:general"})["flags"] == []
    assert client.unflag_user("u2", user_id="bot-1")["flag"]["target_user"]["id"] == "u2"
    refused(lambda: client.unflag_message("f-1", user_id="bot-1"), 404, 16, "user bot-1 has not flagged message f-1")
    refused(lambda: client.post("moderation/unflag", data={"user_id": "bot-1"}), 400, 4,
            "either target_message_id or target_user_id is required")


def test_channel_pin_and_archive_for_a_member_record_when(client, channel):
    pinned = channel.pin("u2")["channel_member"]
    assert pinned["pinned_at"] and "pinned" not in pinned
    assert channel.pin("u2")["channel_member"]["pinned_at"] == pinned["pinned_at"], "pinning again keeps when"
    assert channel.archive("u2")["channel_member"]["archived_at"]
    member = channel.query_members({"id": "u2"})[0]
    assert member["pinned_at"] == pinned["pinned_at"] and member["archived_at"]
    assert channel.unpin("u2")["channel_member"]["pinned_at"] is None
    assert channel.unarchive("u2")["channel_member"]["archived_at"] is None
    assert channel.query_members({"id": "bot-1"})[0]["pinned_at"] is None
    refused(lambda: channel.update_member_partial("u2", to_set={"pinned": "yes"}), 400, 4, "pinned must be true or false, found string")
    refused(lambda: channel.update_member_partial("u2", to_set={"pinned_at": "2020-01-01T00:00:00Z"}), 400, 4,
            "pinned_at is a field the server owns and cannot be set or unset")
