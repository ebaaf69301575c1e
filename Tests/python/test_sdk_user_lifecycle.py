"""The official Python SDK's deactivate, reactivate, delete and restore of users, and bans that
delete the banned user's messages, against the dev server."""

import asyncio
import json

import requests
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from conftest import API_KEY, refused, user_headers
from test_websocket import connect_url


def first_frame(server, client, user_id):
    """The first frame a connection of `user_id` gets: its health check, or a connection.error."""
    async def receive():
        async with connect(connect_url(server, client.create_token(user_id), user_id)) as socket:
            return json.loads(await socket.recv())
    return asyncio.run(receive())


def closed_by(server, client, user_id, action):
    """Opens a connection of `user_id`, runs `action` and answers how the server closed it."""
    async def watch():
        async with connect(connect_url(server, client.create_token(user_id), user_id)) as socket:
            assert json.loads(await socket.recv())["type"] == "health.check"
            await asyncio.to_thread(action)
            try:
                async with asyncio.timeout(5):  # one deadline: health checks come every second
                    while True:
                        await socket.recv()
            except ConnectionClosed as closed:
                return closed.rcvd.code, closed.rcvd.reason
    return asyncio.run(watch())


def types_by_id(channel):
    return {message["id"]: message["type"] for message in channel.query(messages={"limit": 100})["messages"]}


def refused_as_user(server, client, user_id, text):
    """A REST call with `user_id`'s token is refused with 403, code 17 and `text`."""
    answer = requests.get(server.url(f"/app?api_key={API_KEY}"), headers=user_headers(client, user_id))
    assert answer.status_code == 403 and answer.json()["code"] == 17, answer.text
    assert text in answer.json()["message"], answer.json()["message"]


def test_deactivate_and_reactivate_with_messages(server, client, channel):
    channel.send_message({"id": "a-1", "text": "first"}, "u2")
    channel.send_message({"id": "a-2", "text": "second"}, "u2")
    channel.send_message({"id": "b-1", "text": "from the bot"}, "bot-1")
    answers = []
    code, reason = closed_by(server, client, "u2", lambda: answers.append(
        client.deactivate_user("u2", mark_messages_deleted=True, created_by_id="bot-1")))
    assert (code, reason) == (1000, "user u2 is deactivated; reactivate it with POST /users/u2/reactivate"), "its open connection is closed"
    deactivated = answers[0]
    assert deactivated["user"]["id"] == "u2" and deactivated["user"]["deactivated_at"]
    assert types_by_id(channel) == {"a-1": "deleted", "a-2": "deleted", "b-1": "regular"}
    refused_as_user(server, client, "u2", "user u2 is deactivated; reactivate it with POST /users/u2/reactivate")
    error = first_frame(server, client, "u2")
    assert error["type"] == "connection.error" and error["error"]["code"] == 17, error
    refused(lambda: client.deactivate_user("u2"), 400, 4, "user u2 is already deactivated")
    refused(lambda: channel.send_message({"text": "as u2"}, "u2"), 403, 17, "user u2 is deactivated")
    refused(lambda: channel.send_reaction("b-1", {"type": "like"}, "u2"), 403, 17, "user u2 is deactivated")

    reactivated = client.reactivate_user("u2", restore_messages=True, name="Ann again", created_by_id="bot-1")
    assert "deactivated_at" not in reactivated["user"] and reactivated["user"]["name"] == "Ann again"
    assert types_by_id(channel) == {"a-1": "regular", "a-2": "regular", "b-1": "regular"}
    assert first_frame(server, client, "u2")["type"] == "health.check"
    refused(lambda: client.reactivate_user("u2"), 400, 4, "user u2 is not deactivated")


def test_delete_restore_and_hard_delete(server, client, channel):
    channel.send_message({"id": "a-1", "text": "mine"}, "u2")
    deleted = client.delete_user("u2", mark_messages_deleted=True)
    assert deleted["user"]["deleted_at"] and types_by_id(channel) == {"a-1": "deleted"}
    refused_as_user(server, client, "u2", "user u2 was deleted; restore it with POST /users/restore")
    refused(lambda: client.delete_user("u2"), 400, 4, "user u2 is already deleted")
    refused(lambda: client.deactivate_user("u2"), 400, 4, "user u2 is deleted, so it cannot be deactivated")

    client.restore_users(["u2"])
    assert first_frame(server, client, "u2")["type"] == "health.check"
    assert types_by_id(channel) == {"a-1": "deleted"}, "restoring the user does not restore its messages"
    refused(lambda: client.restore_users(["u2"]), 400, 4, "user u2 is not deleted")

    channel.send_message({"id": "a-2", "text": "again"}, "u2")
    assert client.query_users({"id": "u2"})["users"][0]["name"] == "Socket User", "set by its connection above"
    hard = client.delete_user("u2", mark_messages_deleted=True, hard_delete=True)["user"]
    assert hard["id"] == "u2" and hard["deleted_at"] and "name" not in hard, "a hard-deleted user loses its custom fields, also in the answer"
    assert "name" not in client.query_users({"id": "u2"}, include_deactivated_users=True)["users"][0]
    assert types_by_id(channel) == {}, "hard: gone with the soft-deleted one"
    assert [member["user_id"] for member in channel.query()["members"]] == ["bot-1"]
    refused(lambda: client.restore_users(["u2"]), 400, 4, "user u2 was deleted for good and cannot be restored")
    refused_as_user(server, client, "u2", "user u2 was deleted for good")


def test_bad_lifecycle_requests_are_refused(server, client, channel):
    channel.send_message({"id": "a-1", "text": "mine"}, "u2")
    refused(lambda: client.delete_user("ghost"), 404, 16, "user ghost does not exist")
    refused(lambda: client.deactivate_user("ghost"), 404, 16, "user ghost does not exist")
    refused(lambda: client.restore_users([]), 400, 4, "user_ids must be a list of user ids")
    refused(lambda: client.delete_user("u2", delete_conversation_channels=True), 400, 4,
            "delete_conversation_channels is not supported by the dev server")
    as_user = requests.delete(server.url(f"/users/u2?api_key={API_KEY}"), headers=user_headers(client, "u2"))
    assert as_user.status_code == 403 and "users can only be deleted with a server token" in as_user.json()["message"]
    assert types_by_id(channel) == {"a-1": "regular"} and first_frame(server, client, "u2")["type"] == "health.check"

    client.delete_user("u2")
    assert types_by_id(channel) == {"a-1": "regular"}, "without mark_messages_deleted the messages stay"
    refused(lambda: client.restore_users(["u2", "ghost"]), 404, 16, "user ghost does not exist")
    refused_as_user(server, client, "u2", "user u2 was deleted")  # a refused restore restores no one


def test_ban_that_deletes_messages(server, client, channel):
    channel.send_message({"id": "a-1", "text": "spam"}, "u2")
    channel.send_message({"id": "b-1", "text": "fine"}, "bot-1")
    refused(lambda: channel.ban_user("u2", banned_by_id="bot-1", delete_messages="pruning"), 400, 4,
            "delete_messages \"pruning\" is not supported by the dev server")
    refused(lambda: channel.ban_user("u2", banned_by_id="bot-1", delete_messages="all"), 400, 4,
            "delete_messages must be \"soft\" or \"hard\"")
    assert types_by_id(channel) == {"a-1": "regular", "b-1": "regular"}, "nothing refused deleted anything"
    channel.ban_user("u2", banned_by_id="bot-1", delete_messages="soft")
    assert types_by_id(channel) == {"a-1": "deleted", "b-1": "regular"}
    channel.unban_user("u2")
    client.ban_user("u2", banned_by_id="bot-1", delete_messages="hard")
    assert types_by_id(channel) == {"b-1": "regular"}


def test_bulk_deletes_and_deactivations_answer_completed_tasks(server, client, channel):
    client.upsert_users([{"id": "cem"}, {"id": "dan"}])
    channel.add_members(["cem", "dan"])
    channel.send_message({"id": "c-1", "text": "from cem"}, "cem")
    channel.send_message({"id": "d-1", "text": "from dan"}, "dan")
    channel.send_message({"id": "u-1", "text": "from u2"}, "u2")

    task = client.get_task(client.delete_users(["cem", "ghost"], "soft", messages="soft")["task_id"])
    assert task["status"] == "completed" and task["result"]["cem"] == "ok", task
    assert "user ghost does not exist" in task["result"]["ghost"], "one user's refusal does not stop the others"
    assert types_by_id(channel) == {"c-1": "deleted", "d-1": "regular", "u-1": "regular"}
    refused_as_user(server, client, "cem", "user cem was deleted")

    task = client.get_task(client.deactivate_users(["dan", "u2"], mark_messages_deleted=True, created_by_id="bot-1")["task_id"])
    assert task["result"] == {"dan": "ok", "u2": "ok"}, task
    assert types_by_id(channel) == {"c-1": "deleted", "d-1": "deleted", "u-1": "deleted"}
    refused_as_user(server, client, "dan", "user dan is deactivated")

    task = client.get_task(client.delete_users(["dan"], "hard", messages="hard")["task_id"])
    assert task["result"] == {"dan": "ok"} and "d-1" not in types_by_id(channel)

    refused(lambda: client.delete_users(["u2"], "hard"), 400, 4, "user: hard needs messages: hard")
    refused(lambda: client.delete_users(["u2"], "pruning"), 400, 4, "user \"pruning\" is not supported by the dev server")
    refused(lambda: client.delete_users(["u2"], "soft", conversations="hard"), 400, 4, "conversations is not supported by the dev server")
    refused(lambda: client.delete_users([], "soft"), 400, 4, "user_ids must be a list of 1 to 100 user ids")
    refused(lambda: client.deactivate_users([f"u{n}" for n in range(101)]), 400, 4, "user_ids must be a list of 1 to 100 user ids")
    refused(lambda: client.get_task("no-such-task"), 404, 16, "task no-such-task does not exist")
    as_user = requests.post(server.url(f"/users/delete?api_key={API_KEY}"), headers=user_headers(client, "bot-1"),
                            data=json.dumps({"user_ids": ["u2"], "user": "soft"}))
    assert as_user.status_code == 403 and "users can only be deleted with a server token" in as_user.json()["message"]
