"""The official Python SDK's query_message_history against the dev server."""

from conftest import refused


def test_each_edit_keeps_the_version_it_replaced(server, client, channel):
    channel.send_message({"id": "plan", "text": "run 5 km", "distance": 5000}, "u2")
    client.update_message({"id": "plan", "text": "run 10 km", "distance": 10000, "user_id": "u2"})
    client.update_message_partial("plan", {"set": {"text": "run 12 km"}}, "bot-1")
    client.pin_message("plan", "bot-1")

    history = client.query_message_history({"message_id": "plan"})["message_history"]
    assert [(h["text"], h["message_updated_by_id"]) for h in history] == [("run 5 km", "u2"), ("run 10 km", "u2")], history
    assert history[0]["distance"] == 5000 and history[1]["distance"] == 10000, "custom fields as they were"
    assert history[0]["message_updated_at"] < history[1]["message_updated_at"]
    assert client.get_message("plan")["message"]["text"] == "run 12 km", "the message itself says the latest; pinning kept no version"

    newest = client.query_message_history({"message_id": {"$eq": "plan"}}, sort=[{"field": "message_updated_at", "direction": -1}], limit=1)
    assert [h["text"] for h in newest["message_history"]] == ["run 10 km"] and newest["next"]
    rest = client.query_message_history({"message_id": "plan"}, sort=[{"field": "message_updated_at", "direction": -1}], next=newest["next"])
    assert [h["text"] for h in rest["message_history"]] == ["run 5 km"] and "next" not in rest
    channel.send_message({"id": "fresh", "text": "never edited"}, "u2")
    assert client.query_message_history({"message_id": "fresh"})["message_history"] == []


def test_bad_history_queries_are_refused(server, client, channel):
    refused(lambda: client.query_message_history({}), 400, 4, "filter.message_id is required")
    refused(lambda: client.query_message_history({"user_id": "u2"}), 400, 4, "filter.user_id is not supported by the dev server")
    refused(lambda: client.query_message_history({"message_id": "ghost"}), 404, 16, "message with id ghost does not exist")
    channel.send_message({"id": "m", "text": "x"}, "u2")
    refused(lambda: client.query_message_history({"message_id": "m"}, sort=[{"field": "text"}]), 400, 4,
            "sort field must be one of message_updated_at")
    refused(lambda: client.query_message_history({"message_id": "m"}, limit=0), 400, 4, "limit must be a whole number from 1 to 100")
