"""Shared locations against the dev server, through the official Python SDK: a message sent
with `shared_location`, the SDK's `get_user_locations` and `update_user_location`, and what
bad input gets."""

import datetime

from conftest import refused


def in_minutes(minutes):
    return datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(minutes=minutes)


def test_a_live_location_is_shared_moved_listed_and_stopped(client, channel):
    shared = {"created_by_device_id": "test_device_id", "latitude": 37.7749, "longitude": -122.4194, "end_at": in_minutes(60).isoformat()}
    message = channel.send_message({"text": "Message with location", "shared_location": shared}, "u2")["message"]
    location = message["shared_location"]
    assert (location["latitude"], location["longitude"], location["created_by_device_id"]) == (37.7749, -122.4194, "test_device_id")
    assert location["message_id"] == message["id"] and location["user_id"] == "u2" and location["channel_cid"] == "messaging:general"
    assert location["end_at"].endswith("Z") and location["created_at"] == location["updated_at"] == message["created_at"]

    live = client.get_user_locations("u2")["active_live_locations"]
    assert [entry["message_id"] for entry in live] == [message["id"]]
    assert client.get_user_locations("bot-1")["active_live_locations"] == []

    moved = client.update_user_location("u2", message["id"], {"latitude": 37.78, "longitude": -122.41})
    assert (moved["latitude"], moved["longitude"], moved["end_at"]) == (37.78, -122.41, location["end_at"])
    assert moved["updated_at"] > location["updated_at"] and "duration" in moved
    after = client.get_message(message["id"])["message"]
    assert after["shared_location"]["latitude"] == 37.78 and after["updated_at"] == message["updated_at"], "a move is not an edit"
    assert channel.query(messages={"limit": 5})["messages"][-1]["shared_location"]["longitude"] == -122.41
    assert client.get_user_locations("u2")["active_live_locations"][0]["latitude"] == 37.78

    stopped = client.update_user_location("u2", message["id"], {"end_at": in_minutes(-1).isoformat()})
    assert stopped["end_at"] <= stopped["updated_at"], "an end in the past stops it now"
    assert client.get_user_locations("u2")["active_live_locations"] == []
    refused(lambda: client.update_user_location("u2", message["id"], {"latitude": 1}), 400, 4,
            f"live location sharing of message {message['id']} ended at")


def test_a_static_location_stays_put(client, channel):
    message = channel.send_message({"text": "here", "shared_location": {"latitude": 48.8584, "longitude": 2.2945}}, "u2")["message"]
    assert "end_at" not in message["shared_location"] and message["shared_location"]["created_by_device_id"] == ""
    assert client.get_user_locations("u2")["active_live_locations"] == []
    refused(lambda: client.update_user_location("u2", message["id"], {"latitude": 1}), 400, 4,
            f"the location of message {message['id']} is static; only a live location can be updated")


def test_bad_locations_are_refused_and_change_nothing(client, channel):
    def send(location):
        return lambda: channel.send_message({"text": "bad", "shared_location": location}, "u2")

    refused(send("paris"), 400, 4, "message.shared_location must be an object")
    refused(send({"latitude": 10}), 400, 4, "message.shared_location needs latitude and longitude")
    refused(send({"latitude": "north", "longitude": 1}), 400, 4, "shared_location.latitude must be a number of degrees from -90 to 90")
    refused(send({"latitude": 1, "longitude": 180.5}), 400, 4, "shared_location.longitude must be a number of degrees from -180 to 180, not 180.5")
    refused(send({"latitude": 1, "longitude": 1, "created_by_device_id": 7}), 400, 4, "shared_location.created_by_device_id must be a string")
    refused(send({"latitude": 1, "longitude": 1, "end_at": "tomorrow"}), 400, 4, "shared_location.end_at must be an RFC 3339 date")
    refused(send({"latitude": 1, "longitude": 1, "end_at": in_minutes(-5).isoformat()}), 400, 4,
            "shared_location.end_at must be in the future for a live location")
    assert [m["text"] for m in channel.query(messages={"limit": 10})["messages"]] == [], "nothing was sent"

    live = channel.send_message({"text": "run", "shared_location": {"latitude": 1, "longitude": 1, "end_at": in_minutes(30).isoformat()}}, "u2")
    message_id = live["message"]["id"]
    plain = channel.send_message({"text": "no location"}, "u2")["message"]["id"]
    refused(lambda: client.update_user_location("bot-1", message_id, {"latitude": 2}), 403, 17,
            "user bot-1 may only update their own live locations")
    refused(lambda: client.update_user_location("u2", plain, {"latitude": 2}), 400, 4, f"message {plain} has no shared location")
    refused(lambda: client.update_user_location("u2", "missing", {"latitude": 2}), 404, 16, "missing")
    refused(lambda: client.update_user_location("u2", message_id, {"latitude": 91}), 400, 4,
            "latitude must be a number of degrees from -90 to 90, not 91")
    refused(lambda: client.update_user_location("u2", message_id, {"end_at": "soon"}), 400, 4, "end_at must be an RFC 3339 date")
    refused(lambda: client.update_user_location("u2", message_id, {}), 400, 4, "nothing to update: give latitude, longitude or end_at")
    refused(lambda: client.put("users/live_locations", data={"latitude": 2}, params={"user_id": "u2"}), 400, 4,
            "message_id is a required field and must be a string")
    refused(lambda: client.get("users/live_locations"), 400, 4, "either user or user_id must be provided")
    assert client.get_message(message_id)["message"]["shared_location"]["latitude"] == 1, "no refused update moved it"

    client.delete_message(message_id)
    refused(lambda: client.update_user_location("u2", message_id, {"latitude": 2}), 400, 4, f"message {message_id} is deleted")
    assert client.get_user_locations("u2")["active_live_locations"] == [], "a deleted message shares nothing"
