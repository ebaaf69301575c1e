"""Durability: everything acknowledged survives a restart on the same data folder."""

import requests

from conftest import API_KEY, DevServerProcess, png_bytes, user_headers


def test_restart_keeps_everything_acknowledged(tmp_path):
    data = tmp_path / "data"
    first = DevServerProcess(data).start()
    try:
        client = first.client()
        client.upsert_users([{"id": "bot-1", "name": "Bot", "club": "x"}, {"id": "u2"}])
        channel = client.channel("messaging", "durable", data={"name": "Durable", "color": "teal"})
        channel.create("bot-1")
        channel.add_members(["bot-1", "u2"])
        channel.send_message({"id": "keep-1", "text": "persist me", "custom": {"n": 1}}, "bot-1")
        channel.send_reaction("keep-1", {"type": "love"}, "u2")
        picture = tmp_path / "pic.png"
        picture.write_bytes(png_bytes())
        link = channel.send_image(str(picture), "pic.png", {"id": "bot-1"}, content_type="image/png")["file"]
        channel.send_message({"id": "keep-2", "attachments": [{"type": "image", "image_url": link}]}, "u2")
        before = requests.post(first.url(f"/sync?api_key={API_KEY}"),
                               json={"channel_cids": ["messaging:durable"], "last_sync_at": "2000-01-01T00:00:00Z"},
                               headers=user_headers(client, "u2")).json()["events"]
    finally:
        first.stop()

    second = DevServerProcess(data).start()
    try:
        client = second.client()
        assert client.query_users({"id": "bot-1"})["users"][0]["club"] == "x"
        assert [user["id"] for user in client.query_users({"id": {"$in": ["u2", "bot-1"]}})["users"]] == ["bot-1", "u2"]
        state = client.channel("messaging", "durable").query(messages={"limit": 10})
        assert state["channel"]["name"] == "Durable" and state["channel"]["color"] == "teal"
        assert sorted(member["user_id"] for member in state["members"]) == ["bot-1", "u2"]
        assert [message["id"] for message in state["messages"]] == ["keep-1", "keep-2"]
        kept = client.get_message("keep-1")["message"]
        assert kept["text"] == "persist me" and kept["custom"] == {"n": 1}
        assert kept["reaction_counts"] == {"love": 1} and kept["user"]["name"] == "Bot"
        fresh = client.get_message("keep-2")["message"]["attachments"][0]["image_url"]
        assert fresh.startswith(second.base_url), "links are re-signed for the server's new address"
        assert requests.get(fresh).content == picture.read_bytes()
        after = requests.post(second.url(f"/sync?api_key={API_KEY}"),
                              json={"channel_cids": ["messaging:durable"], "last_sync_at": "2000-01-01T00:00:00Z"},
                              headers=user_headers(client, "u2")).json()["events"]
        assert [event["type"] for event in after] == [event["type"] for event in before]
        assert [event["created_at"] for event in after] == [event["created_at"] for event in before]
    finally:
        second.stop()
