"""The official Python SDK (stream-chat 4.33.0) against the dev server."""

import time

import pytest
import requests
from stream_chat.base.exceptions import StreamAPIException

from conftest import API_KEY, refused, png_bytes, user_headers


WORKOUT = {
    "type": "workout",
    "image_url": "https://path.to/some/great/picture.png",
    "workout-type": "walk",
    "workout-energy-cal": 75500,
    "workout-distance-meters": 1412,
    "workout-duration-seconds": 840,
}


def test_upsert_users_keeps_custom_fields(client):
    response = client.upsert_user({"id": "runner", "name": "Runner", "club": "riverside", "level": 3})
    user = response["users"]["runner"]
    assert user["name"] == "Runner" and user["club"] == "riverside" and user["level"] == 3
    assert user["role"] == "user" and "created_at" in user and "duration" in response
    again = client.upsert_user({"id": "runner", "name": "Renamed"})["users"]["runner"]
    assert again["name"] == "Renamed" and again["created_at"] == user["created_at"]


def test_create_channel_with_members(client, channel):
    state = channel.query(messages={"limit": 5})
    assert state["channel"]["cid"] == "messaging:general"
    assert state["channel"]["name"] == "General"
    assert state["channel"]["created_by"]["id"] == "bot-1"
    assert sorted(member["user_id"] for member in state["members"]) == ["bot-1", "u2"]
    for key in ("cid", "type", "created_at", "updated_at", "config", "disabled", "frozen"):
        assert key in state["channel"], key


def test_member_count_follows_members_in_every_rendering_of_the_channel(client, channel):
    channel.send_message({"id": "count-1", "text": "hi"}, "u2")
    assert client.get_message("count-1")["message"]["channel"]["member_count"] == 2
    channel.add_members(["outsider"])
    assert client.get_message("count-1")["message"]["channel"]["member_count"] == 3
    updated = channel.update({"name": "General", "color": "blue"})
    assert updated["channel"]["member_count"] == 3
    channel.remove_members(["u2", "outsider"])
    assert client.get_message("count-1")["message"]["channel"]["member_count"] == 1
    found = client.search({"cid": "messaging:general"}, "hi")["results"][0]["message"]
    assert found["channel"]["member_count"] == 1


def test_server_side_create_needs_a_creator(client):
    with pytest.raises(StreamAPIException) as error:
        client.channel("messaging", "nobody").query()
    assert error.value.status_code == 400
    assert "either data.created_by or data.created_by_id must be provided" in error.value.error_message


def test_custom_attachment_and_fields_round_trip(client, channel):
    sent = channel.send_message(
        {"id": "workout-1", "text": "walked", "attachments": [WORKOUT], "custom_field": 1, "mood": {"stars": 5}},
        "u2", skip_push=True)
    assert sent["message"]["id"] == "workout-1"
    read = client.get_message("workout-1")["message"]
    assert read["attachments"] == [WORKOUT]
    assert read["custom_field"] == 1 and read["mood"] == {"stars": 5}
    assert read["user"]["id"] == "u2" and read["text"] == "walked"
    assert read["channel"]["cid"] == "messaging:general"


def test_duplicate_message_id_is_refused(client, channel):
    channel.send_message({"id": "dup", "text": "one"}, "bot-1")
    with pytest.raises(StreamAPIException) as error:
        channel.send_message({"id": "dup", "text": "two"}, "bot-1")
    assert error.value.status_code == 400
    assert error.value.error_code == 4
    assert error.value.error_message == "SendMessage failed with error: \"a message with ID dup already exists\""
    assert client.get_message("dup")["message"]["text"] == "one"


def test_send_file_and_image_then_download_bytes(tmp_path, channel):
    notes = tmp_path / "notes.txt"
    notes.write_bytes(b"hello text file\n" * 1000)
    picture = tmp_path / "pic.png"
    picture.write_bytes(png_bytes())
    uploaded_file = channel.send_file(str(notes), "notes.txt", {"id": "bot-1"}, content_type="text/plain")
    uploaded_image = channel.send_image(str(picture), "pic.png", {"id": "bot-1"}, content_type="image/png")
    assert "Signature=" in uploaded_file["file"] and "Expires=" in uploaded_file["file"] and "Key-Pair-Id=" in uploaded_file["file"]
    assert uploaded_image["thumb_url"]
    assert requests.get(uploaded_file["file"]).content == notes.read_bytes()
    download = requests.get(uploaded_image["file"])
    assert download.status_code == 200 and download.content == picture.read_bytes()
    assert download.headers["Content-Type"] == "image/png"
    # HEAD answers as a CDN does: GET's headers, no bytes (clients check a link with it).
    head = requests.head(uploaded_file["file"])
    assert head.status_code == 200 and head.content == b""
    assert head.headers["Content-Length"] == str(len(notes.read_bytes())) and head.headers["Content-Type"] == "text/plain"


def test_get_message_refreshes_an_expired_link(tmp_path, client, channel):
    picture = tmp_path / "pic.png"
    picture.write_bytes(png_bytes())
    link = channel.send_image(str(picture), "pic.png", {"id": "bot-1"}, content_type="image/png")["file"]
    channel.send_message({"id": "with-image", "attachments": [{"type": "image", "image_url": link}]}, "bot-1")
    time.sleep(2.5)
    expired = requests.get(link)
    assert expired.status_code == 403
    assert requests.head(link).status_code == 403
    assert "expired" in expired.json()["message"]
    fresh = client.get_message("with-image")["message"]["attachments"][0]["image_url"]
    assert fresh != link
    response = requests.get(fresh)
    assert response.status_code == 200 and response.content == picture.read_bytes()


def test_delete_file_makes_the_link_dead(tmp_path, channel):
    notes = tmp_path / "notes.txt"
    notes.write_text("bye")
    link = channel.send_file(str(notes), "notes.txt", {"id": "bot-1"}, content_type="text/plain")["file"]
    assert requests.get(link).status_code == 200
    channel.delete_file(link)
    gone = requests.get(link)
    assert gone.status_code == 404 and gone.json()["code"] == 16
    assert requests.head(link).status_code == 404


def stored_files(server):
    files = server.data_dir / "files"
    return sorted(path.name for path in files.rglob("*") if path.is_file())


def test_blocking_exe_makes_uploading_one_fail(tmp_path, server, client, channel):
    client.update_app_settings(file_upload_config={"blocked_file_extensions": [".exe"]})
    settings = client.get_app_settings()["app"]["file_upload_config"]
    assert settings["blocked_file_extensions"] == [".exe"]
    program = tmp_path / "setup.exe"
    program.write_bytes(b"MZ\x90\x00" + b"\x00" * 100)
    with pytest.raises(StreamAPIException) as error:
        channel.send_file(str(program), "setup.exe", {"id": "bot-1"}, content_type="application/x-msdownload")
    assert error.value.status_code == 400
    assert "File extension .exe is blocked" in error.value.error_message
    assert stored_files(server) == [], "nothing of a refused upload stays on disk"


def test_update_app_settings_validates_extensions(client):
    with pytest.raises(StreamAPIException) as error:
        client.update_app_settings(file_upload_config={"blocked_file_extensions": ["exe"]})
    assert error.value.status_code == 400
    assert "must start with a dot" in error.value.error_message


def test_reactions(client, channel):
    channel.send_message({"id": "r-1", "text": "react"}, "bot-1")
    added = channel.send_reaction("r-1", {"type": "like", "stars": 3}, "u2")
    assert added["reaction"]["type"] == "like" and added["reaction"]["stars"] == 3
    assert added["message"]["reaction_counts"] == {"like": 1}
    message = client.get_message("r-1")["message"]
    assert message["latest_reactions"][0]["user_id"] == "u2"
    removed = channel.delete_reaction("r-1", "like", "u2")
    assert removed["message"]["reaction_counts"] == {}


def test_query_channels(client, channel):
    other = client.channel("messaging", "other", data={"topic": "x"})
    other.create("u2")
    other.add_members(["u2"])
    other.add_members(["u2"])
    found = client.query_channels({"members": {"$in": ["bot-1"]}}, {"last_message_at": -1}, limit=10)
    assert [state["channel"]["cid"] for state in found["channels"]] == ["messaging:general"]
    both = client.query_channels({"cid": {"$in": ["messaging:general", "messaging:other"]}}, limit=10)
    assert sorted(state["channel"]["cid"] for state in both["channels"]) == ["messaging:general", "messaging:other"]


def test_query_channels_sorted(client):
    client.upsert_users([{"id": "u2"}, {"id": "u3"}, {"id": "u4"}])
    for name, rank, members in [("b", 2, ["u2", "u3", "u4"]), ("c", 1, ["u2", "u3"]), ("a", None, ["u2"])]:
        data = {"rank": rank} if rank is not None else {}
        created = client.channel("messaging", name, data=data)
        created.create("u2")
        created.add_members(members)
    client.channel("messaging", "c").send_message({"text": "latest"}, "u2")

    def cids(sort):
        found = client.query_channels({"members": {"$in": ["u2"]}}, sort, limit=10)["channels"]
        return [state["channel"]["id"] for state in found]

    assert cids({"created_at": 1}) == ["b", "c", "a"]
    assert cids({"created_at": -1}) == ["a", "c", "b"]
    assert cids({"member_count": -1, "created_at": 1}) == ["b", "c", "a"]
    # Channels without messages come last, in the default order (the newest first).
    assert cids({"last_message_at": -1}) == ["c", "a", "b"]
    assert cids({"rank": 1}) == ["c", "b", "a"]  # a custom field; a channel without it comes last
    assert cids({"rank": -1}) == ["b", "c", "a"]
    assert [state["channel"]["id"] for state in client.query_channels(
        {"members": {"$in": ["u2"]}}, {"created_at": 1}, limit=2, offset=1)["channels"]] == ["c", "a"]
    with pytest.raises(StreamAPIException) as error:
        client.query_channels({"members": {"$in": ["u2"]}}, {"created_at": 2})
    assert error.value.status_code == 400
    assert "sort direction must be 1 or -1" in error.value.error_message


def test_edits_deletes_replies_read_typing_and_flags(client, channel):
    channel.send_message({"id": "e-1", "text": "first", "extra": 1}, "bot-1")
    updated = client.update_message({"id": "e-1", "text": "edited", "user_id": "bot-1"})
    assert updated["message"]["text"] == "edited" and "extra" not in updated["message"]
    partial = client.update_message_partial("e-1", {"set": {"text": "p", "tag": "x"}, "unset": ["extra"]}, "bot-1")
    assert partial["message"]["text"] == "p" and partial["message"]["tag"] == "x"
    channel.send_message({"id": "e-2", "text": "reply", "parent_id": "e-1"}, "u2")
    replies = channel.get_replies("e-1", limit=10)["messages"]
    assert [reply["id"] for reply in replies] == ["e-2"]
    assert client.get_message("e-1")["message"]["reply_count"] == 1
    assert channel.mark_read("u2")["event"]["type"] == "message.read"
    assert channel.send_event({"type": "typing.start"}, "bot-1")["event"]["type"] == "typing.start"
    assert client.flag_message("e-1", user_id="u2", reason="spam")["flag"]["target_message_id"] == "e-1"
    flags = client.query_message_flags({"channel_cid": "messaging:general"})["flags"]
    assert [(flag["message"]["id"], flag["user"]["id"], flag["reason"]) for flag in flags] == [("e-1", "u2", "spam")]
    assert client.query_message_flags({"channel_cid": {"$in": ["messaging:other"]}})["flags"] == []
    assert client.query_message_flags({"user_id": {"$eq": "u2"}})["flags"][0]["message"]["text"] == "p"
    soft = client.delete_message("e-1")["message"]
    assert soft["type"] == "deleted" and soft["deleted_at"]
    assert client.get_message("e-1")["message"]["type"] == "deleted"
    client.delete_message("e-2", hard=True)
    with pytest.raises(StreamAPIException) as error:
        client.get_message("e-2")
    assert error.value.status_code == 404


def test_user_token_cannot_read_a_channel_it_is_not_a_member_of(server, client, channel):
    channel.send_message({"id": "secret", "text": "members only"}, "bot-1")
    url = server.url(f"/channels/messaging/general/query?api_key={API_KEY}")
    outsider = requests.post(url, json={"state": True}, headers=user_headers(client, "outsider"))
    assert outsider.status_code == 403
    assert outsider.json()["code"] == 17
    assert "not a member" in outsider.json()["message"]
    assert requests.get(server.url(f"/messages/secret?api_key={API_KEY}"), headers=user_headers(client, "outsider")).status_code == 403
    member = requests.post(url, json={"state": True}, headers=user_headers(client, "u2"))
    assert member.status_code == 201 and member.json()["messages"][0]["id"] == "secret"


def test_rate_limit_headers_are_lower_case_and_read_by_the_sdk(client):
    response = client.get_app_settings()
    limit = response.rate_limit()
    assert limit is not None and limit.limit > 0 and limit.remaining < limit.limit


def test_trailing_slash_base_url_is_served(server):
    assert requests.get(server.base_url + "//app?api_key=" + API_KEY,
                        headers=user_headers(server.client(), "u")).status_code == 200


def test_channel_and_app_bans_stop_messages_reactions_and_uploads_until_lifted(tmp_path, server, client, channel):
    channel.send_message({"id": "b-1", "text": "before the ban"}, "bot-1")
    channel.ban_user("u2", user_id="bot-1", reason="spam files", timeout=60)
    refused(lambda: channel.send_message({"text": "hi"}, "u2"), 403, 17, "user u2 is banned from channel messaging:general until ")
    refused(lambda: channel.send_reaction("b-1", {"type": "like"}, "u2"), 403, 17, "banned from channel messaging:general")
    photo = tmp_path / "photo.png"
    photo.write_bytes(png_bytes())
    refused(lambda: channel.send_image(str(photo), "photo.png", {"id": "u2"}, content_type="image/png"), 403, 17, "banned")
    assert [path for path in (server.data_dir / "files").rglob("*") if path.is_file()] == [], "the refused upload is not kept"
    members = {member["user_id"]: member["banned"] for member in channel.query()["members"]}
    assert members == {"bot-1": False, "u2": True}
    bans = client.query_banned_users({"filter_conditions": {"channel_cid": "messaging:general"}})["bans"]
    assert [(ban["user"]["id"], ban["banned_by"]["id"], ban["reason"], ban["channel"]["cid"]) for ban in bans] == [
        ("u2", "bot-1", "spam files", "messaging:general")]
    assert ban_minutes(bans[0]) == pytest.approx(60, abs=1)
    assert client.query_banned_users({"filter_conditions": {"user_id": "bot-1"}})["bans"] == []
    channel.send_message({"text": "others still talk"}, "bot-1")

    channel.unban_user("u2")
    assert channel.send_message({"text": "back"}, "u2")["message"]["text"] == "back"
    assert client.query_banned_users({"filter_conditions": {"channel_cid": "messaging:general"}})["bans"] == []

    # App-wide: every channel, no end, the hosted service's words.
    client.ban_user("u2", user_id="bot-1")
    refused(lambda: channel.send_message({"text": "hi"}, "u2"), 403, 17, "Your account is currently suspended from chat")
    assert "expires" not in client.query_banned_users({"filter_conditions": {"user_id": "u2"}})["bans"][0]
    client.unban_user("u2")
    channel.send_message({"text": "back again"}, "u2")


def ban_minutes(ban):
    from datetime import datetime
    parse = lambda text: datetime.fromisoformat(text.replace("Z", "+00:00"))
    return (parse(ban["expires"]) - parse(ban["created_at"])).total_seconds() / 60


def test_bad_bans_are_refused_and_ban_no_one(server, client, channel):
    refused(lambda: client.ban_user("", user_id="bot-1"), 400, 4, "target_user_id is a required field")
    refused(lambda: client.ban_user("u2"), 400, 4, "either user or user_id must be provided when using server side auth")
    refused(lambda: client.ban_user("nobody", user_id="bot-1"), 404, 16, "target user nobody does not exist")
    refused(lambda: channel.ban_user("u2", user_id="bot-1", timeout="soon"), 400, 4, "timeout must be a positive whole number")
    refused(lambda: channel.ban_user("u2", user_id="bot-1", timeout=0), 400, 4, "timeout must be a positive whole number")
    refused(lambda: client.shadow_ban("u2", user_id="bot-1"), 400, 4, "shadow and IP bans are not supported by the dev server")
    refused(lambda: client.ban_user("u2", user_id="bot-1", type="messaging"), 400, 4, "needs both type and id")
    refused(lambda: client.ban_user("u2", user_id="bot-1", type="messaging", id="nowhere"), 404, 16,
            "channel messaging:nowhere does not exist")
    refused(lambda: client.query_banned_users({"filter_conditions": {"reason": "spam"}}), 400, 4,
            "filter_conditions.reason is not supported by the dev server")
    # A member's own token may not ban: only admins and the channel's moderators may.
    response = requests.post(server.url(f"/moderation/ban?api_key={API_KEY}"), headers=user_headers(client, "u2"),
                             json={"target_user_id": "bot-1", "type": "messaging", "id": "general"})
    assert response.status_code == 403 and "user u2 may not ban or unban users in messaging:general" in response.json()["message"]
    assert client.query_banned_users({})["bans"] == []
    channel.send_message({"text": "nobody was banned"}, "u2")


def test_search_by_words_filters_sort_and_pages(client, channel):
    other = client.channel("messaging", "other")
    other.create("u2")
    other.add_members(["u2"])
    sent = [
        channel.send_message({"id": "m1", "text": "Morning walk by the river", "attachments": [WORKOUT]}, "u2"),
        channel.send_message({"id": "m2", "text": "a photo", "attachments": [{"type": "image", "image_url": "https://x.test/a.png"}]},
                             "bot-1"),
        channel.send_message({"id": "m3", "text": "evening walk", "priority": 2}, "u2"),
        other.send_message({"id": "m4", "text": "walk elsewhere"}, "u2"),
        channel.send_message({"id": "m5", "text": "a walk taken back"}, "u2"),
    ]
    assert len(sent) == 5
    client.delete_message("m5")

    def ids(response):
        return [result["message"]["id"] for result in response["results"]]

    here = {"cid": "messaging:general"}
    assert ids(client.search(here, "walk")) == ["m1", "m3"]
    assert ids(client.search(here, "RIVER walk")) == ["m1"]
    assert ids(client.search(here, {"attachments.type": {"$in": ["workout"]}})) == ["m1"]
    assert ids(client.search(here, {"attachments.type": "image"})) == ["m2"]
    assert ids(client.search(here, {"$and": [{"user.id": "u2"}, {"priority": {"$gt": 1}}]})) == ["m3"]
    assert ids(client.search(here, {"text": {"$autocomplete": "eve"}})) == ["m3"]
    assert ids(client.search(here, "walk", sort=[{"field": "created_at", "direction": -1}])) == ["m3", "m1"]
    found = client.search({"members": {"$in": ["u2"]}}, "walk")
    assert ids(found) == ["m1", "m3", "m4"]
    assert [result["message"]["channel"]["cid"] for result in found["results"]] == [
        "messaging:general", "messaging:general", "messaging:other"]
    assert found["results"][0]["message"]["attachments"] == [WORKOUT]
    assert "next" not in found

    # Pages: by offset, and by the next cursor of the previous page.
    assert ids(client.search({"members": {"$in": ["u2"]}}, "walk", limit=2, offset=1)) == ["m3", "m4"]
    first = client.search({"members": {"$in": ["u2"]}}, "walk", limit=2)
    assert ids(first) == ["m1", "m3"] and first["next"]
    second = client.search({"members": {"$in": ["u2"]}}, "walk", limit=2, next=first["next"])
    assert ids(second) == ["m4"] and "next" not in second


def test_bad_searches_are_refused(server, client, channel):
    channel.send_message({"id": "kept", "text": "still here"}, "u2")
    here = {"cid": "messaging:general"}
    refused(lambda: client.search({}, "walk"), 400, 4, "filter_conditions must be a channel filter")
    refused(lambda: client.search(here, ""), 400, 4, "query must contain at least one word")
    refused(lambda: client.search(here, {}), 400, 4, "message_filter_conditions must be a non-empty object")
    refused(lambda: client.search(here, {"text": {"$regex": "w.*"}}), 400, 4, "operator $regex on text is not supported")
    refused(lambda: client.search(here, {"created_at": {"$gt": "last week"}}), 400, 4, "needs an RFC 3339 date")
    refused(lambda: client.search(here, {"pinned_at": {"$exists": True}}), 400, 4,
            'filter field "pinned_at" is not supported by the dev server')
    refused(lambda: client.search(here, "walk", sort=[{"field": "reply_count", "direction": 1}]), 400, 4,
            'sort field "reply_count" is not supported')
    refused(lambda: client.search(here, "walk", next="bm90LWEtY3Vyc29y"), 400, 4, "next must be the next or previous value")
    # The SDK refuses offset with sort itself; the server refuses it too, as the hosted service does.
    response = requests.get(server.url("/search"), params={
        "api_key": API_KEY, "payload": '{"filter_conditions": {"cid": "messaging:general"}, "query": "x", "offset": 1, '
                                       '"sort": [{"field": "id", "direction": 1}]}'},
                            headers={"Authorization": client.auth_token, "stream-auth-type": "jwt"})
    assert response.status_code == 400 and "cannot use offset with next or sort parameters" in response.json()["message"]
    assert [result["message"]["id"] for result in client.search(here, "still")["results"]] == ["kept"]
