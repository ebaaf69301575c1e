"""The dev server relays Stream's AI protocol as the hosted service does: `ai_indicator.update`,
`ai_indicator.clear` and `ai_indicator.stop` reach the channel's watchers, and partial updates
of an AI reply reach them as `message.updated`. Sent with the official Python SDK, watched with
an independent WebSocket client."""

import asyncio
import json

import requests
from websockets.asyncio.client import connect

from conftest import user_headers
from test_websocket import connect_url, next_event


def test_indicators_and_partial_updates_reach_a_watcher(server, client, channel):
    async def scenario():
        async with connect(connect_url(server, client.create_token("u2"), "u2")) as socket:
            first = json.loads(await socket.recv())
            connection = first["connection_id"]
            response = await asyncio.to_thread(
                requests.post, server.url("/channels/messaging/general/query?api_key=test-key&connection_id=" + connection),
                json={"watch": True, "state": True}, headers=user_headers(client, "u2"))
            assert response.status_code == 201, response.text

            reply = await asyncio.to_thread(channel.send_message, {"id": "ai-reply-1", "text": "", "ai_generated": True, "generating": True}, "bot-1")
            new = await next_event(socket, "message.new")
            assert new["message"]["id"] == "ai-reply-1" and new["message"]["ai_generated"] is True

            for state in ("AI_STATE_THINKING", "AI_STATE_GENERATING"):
                await asyncio.to_thread(channel.send_event, {"type": "ai_indicator.update", "ai_state": state,
                                                             "message_id": "ai-reply-1", "cid": "messaging:general"}, "bot-1")
                update = await next_event(socket, "ai_indicator.update")
                assert (update["ai_state"], update["message_id"], update["cid"]) == (state, "ai-reply-1", "messaging:general")
                assert update["user"]["id"] == "bot-1"

            await asyncio.to_thread(client.update_message_partial, "ai-reply-1", {"set": {"text": "Hello wor", "generating": True}}, "bot-1")
            updated = await next_event(socket, "message.updated")
            assert updated["message"]["text"] == "Hello wor" and updated["message"]["generating"] is True

            await asyncio.to_thread(client.update_message_partial, "ai-reply-1", {"set": {"text": "Hello world.", "generating": False}}, "bot-1")
            final = await next_event(socket, "message.updated")
            assert final["message"]["text"] == "Hello world." and final["message"]["generating"] is False

            await asyncio.to_thread(channel.send_event, {"type": "ai_indicator.clear", "message_id": "ai-reply-1", "cid": "messaging:general"}, "bot-1")
            clear = await next_event(socket, "ai_indicator.clear")
            assert clear["message_id"] == "ai-reply-1"

            # What Stream's stop button sends: the channel, no message id.
            await asyncio.to_thread(channel.send_event, {"type": "ai_indicator.stop"}, "u2")
            stop = await next_event(socket, "ai_indicator.stop")
            assert stop["cid"] == "messaging:general" and stop["user"]["id"] == "u2"
            assert reply["message"]["id"] == "ai-reply-1"
    asyncio.run(scenario())
