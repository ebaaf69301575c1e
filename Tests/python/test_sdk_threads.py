"""The official Python SDK's query_threads, and GET /threads/{id}, against the dev server."""

from conftest import refused


def test_query_threads_lists_the_threads_a_user_takes_part_in(server, client, channel):
    lab = client.channel("messaging", "lab")
    lab.create("bot-1")
    lab.add_members(["bot-1", "u2"])
    channel.send_message({"id": "plan", "text": "training plan"}, "bot-1")
    channel.send_message({"id": "plan-r1", "text": "looks good", "parent_id": "plan"}, "u2")
    channel.send_message({"id": "plan-r2", "text": "thanks", "parent_id": "plan"}, "bot-1")
    channel.send_message({"id": "plan-r3", "text": "see you", "parent_id": "plan"}, "u2")
    channel.send_message({"id": "quiet", "text": "no replies"}, "u2")
    lab.send_message({"id": "idea", "text": "an idea"}, "u2")
    lab.send_message({"id": "idea-r1", "text": "go on", "parent_id": "idea"}, "bot-1")
    lab.send_message({"id": "other", "text": "bot only"}, "bot-1")
    lab.send_message({"id": "other-r1", "text": "still the bot", "parent_id": "other"}, "bot-1")

    threads = client.query_threads(user_id="u2")["threads"]
    assert [t["parent_message_id"] for t in threads] == ["idea", "plan"], "newest reply first; not the bot's own, not 'quiet'"
    plan = threads[1]
    assert plan["channel_cid"] == "messaging:general" and plan["channel"]["cid"] == "messaging:general"
    assert plan["parent_message"]["text"] == "training plan" and plan["created_by_user_id"] == "bot-1"
    assert plan["reply_count"] == 3 and plan["participant_count"] == 2
    assert [r["id"] for r in plan["latest_replies"]] == ["plan-r2", "plan-r3"], "the latest two, oldest first"
    assert [p["user_id"] for p in plan["thread_participants"]] == ["bot-1", "u2"]
    assert "next" not in client.query_threads(user_id="u2")

    assert [t["parent_message_id"] for t in client.query_threads(filter={"channel_cid": "messaging:general"}, user_id="u2")["threads"]] == ["plan"]
    assert [t["parent_message_id"] for t in client.query_threads(sort=[{"field": "reply_count", "direction": -1}], user_id="u2")["threads"]] == ["plan", "idea"]
    first = client.query_threads(user_id="u2", limit=1, reply_limit=0)
    assert [t["parent_message_id"] for t in first["threads"]] == ["idea"] and first["threads"][0]["latest_replies"] == []
    second = client.query_threads(user_id="u2", limit=1, next=first["next"])
    assert [t["parent_message_id"] for t in second["threads"]] == ["plan"] and "next" not in second

    one = client.get("threads/plan", params={"reply_limit": 1})["thread"]
    assert one["parent_message_id"] == "plan" and [r["id"] for r in one["latest_replies"]] == ["plan-r3"]
    client.delete_message("plan-r3")
    assert client.get("threads/plan")["thread"]["reply_count"] == 2, "deleted replies do not count"


def test_bad_thread_queries_are_refused(server, client, channel):
    channel.send_message({"id": "lonely", "text": "no replies"}, "bot-1")
    refused(lambda: client.query_threads(), 400, 4, "either user or user_id must be provided")
    refused(lambda: client.query_threads(filter={"title": "x"}, user_id="u2"), 400, 4,
            "filter.title is not supported by the dev server; use channel_cid, created_by_user_id, parent_message_id")
    refused(lambda: client.query_threads(sort=[{"field": "title"}], user_id="u2"), 400, 4,
            "sort field must be one of created_at, last_message_at, reply_count")
    refused(lambda: client.query_threads(user_id="u2", limit=26), 400, 4, "limit must be a whole number from 1 to 25, not 26")
    refused(lambda: client.query_threads(user_id="u2", next="abc"), 400, 4, "next must be the next of an earlier page")
    refused(lambda: client.get("threads/lonely"), 404, 16, "message lonely has no replies, so it starts no thread")
    refused(lambda: client.get("threads/ghost"), 404, 16, "message with id ghost does not exist")
