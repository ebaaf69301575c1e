"""Channel updates, freezing, truncation, deletion, member queries and reaction lists, proven
with the official Python SDK's own calls (update_partial, update, truncate, delete,
query_members, get_reactions) against the dev server."""

import pytest
import requests
from stream_chat.base.exceptions import StreamAPIException

from conftest import user_headers


def send_as_user(server, client, user_id, text, message_id):
    """A send made with a user token, as an app would make it (the SDK only has server tokens)."""
    return requests.post(server.url("/channels/messaging/general/message"), params={"api_key": client.api_key},
                         json={"message": {"id": message_id, "text": text}}, headers=user_headers(client, user_id), timeout=10)


def test_update_partial_and_freezing(server, client, channel):
    reply = channel.update_partial({"frozen": True, "color": "blue"}, [])
    assert reply["channel"]["frozen"] is True and reply["channel"]["color"] == "blue"
    assert sorted(m["user_id"] for m in reply["members"]) == ["bot-1", "u2"]

    # A user's message in a frozen channel comes back as an error message, as on the hosted service.
    refused = send_as_user(server, client, "u2", "let me in", "frozen-1")
    assert refused.status_code == 201
    assert refused.json()["message"]["type"] == "error"
    assert refused.json()["message"]["text"] == "Sorry, this channel has been frozen by the admin"
    with pytest.raises(StreamAPIException) as missing:
        client.get_message("frozen-1")
    assert missing.value.error_code == 16

    posted = channel.send_message({"text": "bot still speaks"}, "bot-1")["message"]
    reaction = requests.post(server.url(f"/messages/{posted['id']}/reaction"), params={"api_key": client.api_key},
                             json={"reaction": {"type": "like"}}, headers=user_headers(client, "u2"), timeout=10)
    assert reaction.status_code == 403 and reaction.json()["code"] == 17
    assert "channel messaging:general is frozen" in reaction.json()["message"]

    thawed = channel.update_partial({"frozen": False}, ["color"])["channel"]
    assert thawed["frozen"] is False and "color" not in thawed
    assert send_as_user(server, client, "u2", "let me in", "thawed-1").json()["message"]["type"] == "regular"

    # The full update (channel.update) sets `frozen` as the channel's flag, not as a custom field.
    updated = channel.update({"name": "General", "frozen": True})["channel"]
    assert updated["frozen"] is True and updated["name"] == "General"
    assert client.query_channels({"cid": "messaging:general"})["channels"][0]["channel"]["frozen"] is True


@pytest.mark.parametrize("to_set,to_unset,reason", [
    ({}, [], "set or unset must name at least one field"),
    ({"cid": "messaging:x"}, [], "cid is a field the server owns and cannot be set or unset"),
    ({}, ["config"], "config is a field the server owns"),
    ({"frozen": "yes"}, [], "frozen must be true or false, not string"),
    ({"image": 42}, [], "image must be a string, not number"),
    ({"color": "red"}, ["color"], "color is both set and unset"),
])
def test_update_partial_refusals(client, channel, to_set, to_unset, reason):
    with pytest.raises(StreamAPIException) as refused:
        channel.update_partial(to_set, to_unset)
    assert refused.value.error_code == 4 and reason in str(refused.value)
    state = channel.query()["channel"]
    assert state["frozen"] is False and state["name"] == "General" and "color" not in state


def test_members_may_not_change_the_channel(server, client, channel):
    reply = requests.patch(server.url("/channels/messaging/general"), params={"api_key": client.api_key},
                           json={"set": {"name": "Mine"}}, headers=user_headers(client, "u2"), timeout=10)
    assert reply.status_code == 403 and reply.json()["code"] == 17
    assert "user u2 may not change channel messaging:general" in reply.json()["message"]
    assert channel.query()["channel"]["name"] == "General"


def test_truncate_and_delete(client, channel):
    first = channel.send_message({"text": "first"}, "u2")["message"]
    channel.send_message({"text": "second"}, "u2")

    truncated = channel.truncate(message={"text": "History cleared", "user_id": "bot-1"})
    assert truncated["channel"]["truncated_at"] and truncated["message"]["type"] == "system"
    assert [m["text"] for m in channel.query()["messages"]] == ["History cleared"]
    assert client.get_message(first["id"])["message"]["type"] == "deleted"
    assert client.search({"cid": "messaging:general"}, "first")["results"] == []

    channel.truncate(hard_delete=True)
    with pytest.raises(StreamAPIException) as gone:
        client.get_message(first["id"])
    assert gone.value.error_code == 16
    with pytest.raises(StreamAPIException) as bad_date:
        channel.truncate(truncated_at="yesterday")
    assert bad_date.value.error_code == 4 and "truncated_at must be an RFC 3339 date" in str(bad_date.value)

    channel.send_message({"text": "last words"}, "u2")
    deleted = channel.delete()["channel"]
    assert deleted["deleted_at"] and deleted["cid"] == "messaging:general"
    assert client.query_channels({"cid": "messaging:general"})["channels"] == []
    with pytest.raises(StreamAPIException) as missing:
        channel.query_members({})
    assert missing.value.error_code == 16

    again = client.channel("messaging", "general")
    again.create("bot-1")
    state = again.query()
    assert state["messages"] == [] and [m["user_id"] for m in state["members"]] == []


def test_delete_channels_in_bulk_answers_a_completed_task(server, client, channel):
    lab = client.channel("messaging", "lab")
    lab.create("bot-1")
    lab.send_message({"id": "lab-1", "text": "in the lab"}, "bot-1")
    task = client.get_task(client.delete_channels(["messaging:lab", "messaging:ghost"], hard_delete=True)["task_id"])
    assert task["status"] == "completed" and task["result"]["messaging:lab"] == "ok", task
    assert "channel messaging:ghost does not exist" in task["result"]["messaging:ghost"], "one refusal does not stop the others"
    assert client.query_channels({"cid": {"$in": ["messaging:lab", "messaging:general"]}})["channels"][0]["channel"]["cid"] == "messaging:general"
    with pytest.raises(StreamAPIException) as gone:
        client.get_message("lab-1")
    assert gone.value.error_code == 16, "hard_delete removed its messages"
    with pytest.raises(StreamAPIException) as bad:
        client.delete_channels(["general"])
    assert bad.value.error_code == 4 and "cids: general is not a channel id" in str(bad.value)
    with pytest.raises(StreamAPIException) as empty:
        client.delete_channels([])
    assert empty.value.error_code == 4 and "cids must be a list of 1 to 100 channel ids" in str(empty.value)
    as_member = requests.post(server.url("/channels/delete"), params={"api_key": client.api_key},
                              json={"cids": ["messaging:general"]}, headers=user_headers(client, "u2"), timeout=10).json()
    result = client.get_task(as_member["task_id"])["result"]
    assert "user u2 may not change channel messaging:general" in result["messaging:general"], result
    assert len(client.query_channels({"cid": "messaging:general"})["channels"]) == 1


def test_query_members(client, channel):
    client.upsert_users([{"id": "u3", "name": "Annika Berg"}])
    channel.add_members(["u3"])
    client.ban_user("u3", type="messaging", id="general", user_id="bot-1")

    assert [m["user_id"] for m in channel.query_members({})] == ["bot-1", "u2", "u3"]
    assert [m["user_id"] for m in channel.query_members({"banned": True})] == ["u3"]
    assert [m["user_id"] for m in channel.query_members({"name": {"$autocomplete": "ann"}})] == ["u2", "u3"]
    assert [m["user_id"] for m in channel.query_members({"id": {"$in": ["u2", "nobody"]}})] == ["u2"]
    assert [m["user_id"] for m in channel.query_members({}, sort=[{"field": "user_id", "direction": -1}], limit=2)] == ["u3", "u2"]
    assert [m["user_id"] for m in channel.query_members({}, offset=2)] == ["u3"]

    for bad, reason in [({"color": "blue"}, 'filter field "color" is not supported'),
                        ({"banned": "no"}, "filter on banned must be true or false"),
                        ({"name": {"$gt": "a"}}, "filter on name must be a string")]:
        with pytest.raises(StreamAPIException) as refused:
            channel.query_members(bad)
        assert refused.value.error_code == 4 and reason in str(refused.value)
    # A limit out of range, or one given as text in the JSON payload, is refused and named.
    for limit, shown in [(301, "301"), ("5", '"5"')]:
        with pytest.raises(StreamAPIException) as refused:
            channel.query_members({}, limit=limit)
        assert refused.value.error_code == 4 and f"limit must be a whole number from 1 to 300, not {shown}" in str(refused.value)


def test_get_reactions(client, channel):
    message = channel.send_message({"text": "rate this"}, "bot-1")["message"]
    channel.send_reaction(message["id"], {"type": "like"}, "u2")
    channel.send_reaction(message["id"], {"type": "love"}, "bot-1")
    reactions = channel.get_reactions(message["id"])["reactions"]
    assert [(r["type"], r["user_id"]) for r in reactions] == [("love", "bot-1"), ("like", "u2")]
    assert [r["type"] for r in channel.get_reactions(message["id"], limit=1, offset=1)["reactions"]] == ["like"]
    with pytest.raises(StreamAPIException) as refused:
        channel.get_reactions(message["id"], limit="many")
    assert refused.value.error_code == 4 and 'limit must be a whole number from 1 to 300, not "many"' in str(refused.value)
