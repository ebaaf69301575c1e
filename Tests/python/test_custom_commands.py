"""Custom commands on the dev server, checked with the official SDK: commands and channel types
(`create_command`, `update_channel_type`), the app's `custom_action_handler_url`, a `/ticket`
message answered by a handler of our own (signed like webhooks, `verify_webhook`), and the
handler's answers: ephemeral with buttons, posted, error, removed, and what a failing handler
gets the user."""

import json
import subprocess

import pytest
import requests
from stream_chat import StreamChat
from stream_chat.base.exceptions import StreamAPIException

from conftest import API_KEY, API_SECRET, bots_binary, user_headers, wait_for
from hook_server import HookServer
from test_bots_run import BotsRun, bot_messages


def command_handler(answer):
    """The custom command handler of a test (see hook_server.HookServer)."""
    return HookServer(answer, "/commands/{type}")


BUTTONS = [
    {"type": "button", "name": "action", "value": "confirm", "text": "Confirm", "style": "primary"},
    {"type": "button", "name": "action", "value": "cancel", "text": "Cancel", "style": "default"},
]


def ticket_handler(body):
    """The support-ticket handler of Stream's custom command guide."""
    message = body["message"]
    action = (body.get("form_data") or {}).get("action")
    if action == "confirm":
        message.update(type="regular", text=f'ticket created about "{message["args"]}"', attachments=None)
    elif action == "cancel":
        message = None
    elif not message["args"].strip():
        message.update(type="error", text="missing ticket description")
    else:
        message.update(type="ephemeral", text=f'creating ticket about "{message["args"]}"',
                       attachments=[{"type": "text", "actions": BUTTONS}])
    return 200, {"message": message}


@pytest.fixture
def handler():
    made = []

    def make(answer=ticket_handler):
        made.append(command_handler(answer))
        return made[-1]

    yield make
    for each in made:
        each.stop()


def set_up_ticket(client, handler_url):
    client.create_command({"name": "ticket", "description": "Create a support ticket", "args": "[description]", "set": "support"})
    client.update_channel_type("messaging", commands=["ticket", "giphy"])
    client.update_app_settings(custom_action_handler_url=handler_url)


def test_commands_are_created_listed_changed_and_deleted(client, channel):
    created = client.create_command({"name": "ticket", "description": "Create a support ticket", "args": "[description]"})
    assert created["command"]["name"] == "ticket" and created["command"]["args"] == "[description]"
    names = [command["name"] for command in client.list_commands()["commands"]]
    assert names == ["giphy", "ban", "unban", "mute", "unmute", "ticket"]
    assert client.get_command("ticket")["description"] == "Create a support ticket"
    updated = client.update_command("ticket", description="Open a ticket", set="support")
    assert updated["command"]["description"] == "Open a ticket" and updated["command"]["set"] == "support"

    # A channel type offers the commands it names, and its channels say so in their config.
    assert channel.query()["channel"]["config"]["commands"] == []
    answer = client.update_channel_type("messaging", commands=["ticket"])
    assert answer["commands"] == ["ticket"]
    assert [c["name"] for c in client.get_channel_type("messaging")["commands"]] == ["ticket"]
    config = channel.query()["channel"]["config"]
    assert [(c["name"], c["description"]) for c in config["commands"]] == [("ticket", "Open a ticket")]
    assert client.list_channel_types()["channel_types"]["team"]["commands"] == []
    client.update_channel_type("team", commands=["all"])
    assert [c["name"] for c in client.get_channel_type("team")["commands"]] == ["giphy", "ban", "unban", "mute", "unmute", "ticket"]

    # Deleted: gone from the list and from the channel types that offered it.
    assert client.delete_command("ticket")["name"] == "ticket"
    assert "ticket" not in [command["name"] for command in client.list_commands()["commands"]]
    assert channel.query()["channel"]["config"]["commands"] == []
    with pytest.raises(StreamAPIException) as missing:
        client.get_command("ticket")
    assert missing.value.status_code == 404 and "command ticket does not exist" in missing.value.error_message


@pytest.mark.parametrize(
    "data, status, expected",
    [
        ({"name": "giphy", "description": "mine"}, 400, "giphy is a built-in command"),
        ({"name": "Ticket", "description": "x"}, 400, "must be 1 to 255 lower-case letters"),
        ({"name": "two words", "description": "x"}, 400, "must be 1 to 255 lower-case letters"),
        ({"name": "ticket"}, 400, "description is required"),
        ({"name": "ticket", "description": "x", "args": 3}, 400, "args must be a string"),
    ],
)
def test_bad_commands_are_refused_by_name(client, data, status, expected):
    with pytest.raises(StreamAPIException) as refused:
        client.create_command(data)
    assert refused.value.status_code == status and expected in refused.value.error_message
    assert [c["name"] for c in client.list_commands()["commands"]] == ["giphy", "ban", "unban", "mute", "unmute"]


def test_bad_command_changes_are_refused_and_change_nothing(client, server):
    client.create_command({"name": "ticket", "description": "Create a support ticket"})
    cases = [
        (lambda: client.create_command({"name": "ticket", "description": "again"}), 400, "command ticket already exists"),
        (lambda: client.update_command("ticket", color="red"), 400, "color is not a command field"),
        (lambda: client.update_command("ticket", description=""), 400, "description cannot be empty"),
        (lambda: client.update_command("giphy", description="mine"), 404, "giphy is a built-in command and cannot be changed"),
        (lambda: client.delete_command("ban"), 404, "ban is a built-in command and cannot be deleted"),
        (lambda: client.update_channel_type("messaging", commands=["ticket", "nope"]), 400, "command nope does not exist"),
        (lambda: client.update_channel_type("messaging", commands="ticket"), 400, "commands must be an array of command names"),
        (lambda: client.update_channel_type("messaging", uploads=False), 400, "changes only a channel type's commands, not uploads"),
        (lambda: client.update_channel_type("meetings", commands=["ticket"]), 404, "channel type \"meetings\" does not exist"),
        (lambda: client.update_app_settings(custom_action_handler_url="ftp://x/{type}"), 400, "must be an http or https URL"),
        (lambda: client.update_app_settings(custom_action_handler_url=7), 400, "custom_action_handler_url must be a string"),
    ]
    for call, status, expected in cases:
        with pytest.raises(StreamAPIException) as refused:
            call()
        assert refused.value.status_code == status and expected in refused.value.error_message, expected
    assert client.get_command("ticket")["description"] == "Create a support ticket"
    assert client.get_channel_type("messaging")["commands"] == []
    assert "custom_action_handler_url" not in client.get_app_settings()["app"]
    # Only the app's server side manages commands.
    answer = requests.get(server.url("/commands"), params={"api_key": client.api_key}, headers=user_headers(client, "u2"))
    assert answer.status_code == 403 and "server token" in answer.json()["message"]


def test_a_custom_command_goes_to_its_handler_and_a_button_posts_it(client, channel, handler):
    ticket = handler()
    set_up_ticket(client, ticket.url)
    sent = channel.send_message({"text": "/ticket my laptop stopped working", "id": "t-1"}, "u2")["message"]

    # The handler got the message and its user, signed as webhooks are, at its command's URL.
    path, headers, raw = ticket.requests[0]
    assert path == "/commands/ticket"
    assert client.verify_webhook(raw, headers["X-Signature"]) and not client.verify_webhook(raw + b" ", headers["X-Signature"])
    first = json.loads(raw)
    assert first["message"]["command"] == "ticket" and first["message"]["args"] == "my laptop stopped working"
    assert first["message"]["text"] == "/ticket my laptop stopped working" and first["user"]["id"] == "u2"
    assert "form_data" not in first

    # Ephemeral: the author sees the question with its buttons; nobody else, nothing posted.
    assert sent["type"] == "ephemeral" and sent["text"] == 'creating ticket about "my laptop stopped working"'
    assert sent["attachments"][0]["actions"] == BUTTONS and sent["command"] == "ticket"
    assert channel.query()["messages"] == []
    with pytest.raises(StreamAPIException):
        client.get_message("t-1")

    # The user presses Confirm: the handler is asked again with the form data, and the message
    # is posted as it answered, to everyone.
    posted = client.run_message_action("t-1", {"form_data": {"action": "confirm"}, "user_id": "u2"})["message"]
    assert ticket.bodies()[1]["form_data"] == {"action": "confirm"}
    assert ticket.bodies()[1]["message"]["type"] == "ephemeral"
    assert posted["type"] == "regular" and posted["text"] == 'ticket created about "my laptop stopped working"'
    assert posted["attachments"] == []
    stored = client.get_message("t-1")["message"]
    assert stored["text"] == posted["text"] and stored["command"] == "ticket" and stored["user"]["id"] == "u2"
    assert [m["id"] for m in channel.query()["messages"]] == ["t-1"]
    # It is no longer ephemeral: another press is refused.
    with pytest.raises(StreamAPIException) as again:
        client.run_message_action("t-1", {"form_data": {"action": "confirm"}, "user_id": "u2"})
    assert again.value.status_code == 400 and "not an ephemeral command message" in again.value.error_message


def test_cancel_removes_the_message_and_error_refuses_it(client, channel, handler):
    set_up_ticket(client, handler().url)
    channel.send_message({"text": "/ticket printer on fire", "id": "t-2"}, "u2")
    assert client.run_message_action("t-2", {"form_data": {"action": "cancel"}, "user_id": "u2"})["message"] is None
    with pytest.raises(StreamAPIException) as gone:
        client.run_message_action("t-2", {"form_data": {"action": "confirm"}, "user_id": "u2"})
    assert gone.value.status_code == 404
    assert channel.query()["messages"] == []

    refused = channel.send_message({"text": "/ticket   ", "id": "t-3"}, "u2")["message"]
    assert refused["type"] == "error" and refused["text"] == "missing ticket description"
    assert channel.query()["messages"] == []
    # The id was not taken: the same id can be sent again.
    assert channel.send_message({"text": "hello", "id": "t-3"}, "u2")["message"]["type"] == "regular"


def test_what_a_failing_handler_gets_the_user(client, channel, handler):
    answers = iter([
        (500, {"error": "boom"}),
        (200, {"reply": "no message key"}),
        (200, {"message": {"type": "system", "text": "x"}}),
        (200, {"message": {"type": "regular", "text": "x" * 5001}}),
        (200, {"message": "just text"}),
    ])
    broken = handler(lambda body: next(answers))
    set_up_ticket(client, broken.url)
    expected = [
        "The /ticket command failed: its handler answered HTTP 500.",
        "The /ticket command failed: its handler answered something other than {\"message\": …}.",
        "The /ticket command failed: its handler answered message type \"system\"; it may answer regular, ephemeral or error.",
        "The /ticket command's handler answered a message the service refuses:",
        "The /ticket command failed: its handler answered a message that is not an object.",
    ]
    for index, text in enumerate(expected):
        answer = channel.send_message({"text": "/ticket help", "id": f"f-{index}"}, "u2")["message"]
        assert answer["type"] == "error" and answer["text"].startswith(text), answer["text"]
    assert channel.query()["messages"] == []

    broken.stop()
    answer = channel.send_message({"text": "/ticket help", "id": "f-unreachable"}, "u2")["message"]
    assert answer["type"] == "error" and answer["text"] == "The /ticket command failed: its handler could not be reached."

    client.update_app_settings(custom_action_handler_url="")
    answer = channel.send_message({"text": "/ticket help", "id": "f-none"}, "u2")["message"]
    assert answer["type"] == "error" and "has no custom_action_handler_url" in answer["text"]
    assert channel.query()["messages"] == []


def test_commands_a_channel_type_does_not_offer_are_plain_text(client, channel, handler):
    ticket = handler()
    set_up_ticket(client, ticket.url)
    client.update_channel_type("messaging", commands=["giphy"])
    sent = channel.send_message({"text": "/ticket help", "id": "p-1"}, "u2")["message"]
    assert sent["type"] == "regular" and sent["text"] == "/ticket help"
    assert channel.send_message({"text": "/stats week", "id": "p-2"}, "u2")["message"]["type"] == "regular"
    assert ticket.requests == []


def test_bad_actions_are_refused(client, channel, handler, server):
    set_up_ticket(client, handler().url)
    channel.send_message({"text": "/ticket help", "id": "a-1"}, "u2")
    channel.send_message({"text": "plain", "id": "a-2"}, "u2")
    cases = [
        ("a-1", {"user_id": "u2"}, 400, "form_data is required"),
        ("a-1", {"form_data": {}, "user_id": "u2"}, 400, "form_data is required"),
        ("a-1", {"form_data": {"action": {"nested": 1}}, "user_id": "u2"}, 400, "form_data is required"),
        ("a-1", {"form_data": {"action": "confirm"}}, 400, "either user or user_id must be provided"),
        ("a-1", {"form_data": {"action": "confirm"}, "user_id": "bot-1"}, 403, "shown to u2 alone"),
        ("a-2", {"form_data": {"action": "confirm"}, "user_id": "u2"}, 400, "not an ephemeral command message"),
        ("nope", {"form_data": {"action": "confirm"}, "user_id": "u2"}, 404, "message nope does not exist"),
    ]
    for message_id, data, status, expected in cases:
        with pytest.raises(StreamAPIException) as refused:
            client.run_message_action(message_id, data)
        assert refused.value.status_code == status and expected in refused.value.error_message, expected
    # With the user's own token it works, and the ephemeral message was left as it was.
    answer = requests.post(
        server.url("/messages/a-1/action"), params={"api_key": client.api_key}, headers=user_headers(client, "u2"),
        json={"form_data": {"action": "confirm"}})
    assert answer.status_code == 201 and answer.json()["message"]["type"] == "regular"


def test_bots_run_answers_the_workout_bots_log_command(tmp_path):
    """`bots run` with the workout bot (WebSocket events) and a webhook: section: the bot's
    /log custom command is created, offered in messaging channels and answered; Log posts the
    sender's workout, which the bot records and sums up."""
    config = tmp_path / "bots.yaml"
    config.write_text(f"""
server: {{api_key: {API_KEY}, api_secret: {API_SECRET}}}
embedded: {{port: 0, data: {tmp_path}/data}}
webhook: {{port: 0, commands_path: /stream/commands}}
bots:
  - name: workout
    kind: workout
    user: workout-bot
    channels: [messaging:general]
    database: {tmp_path}/workouts.sqlite
""")
    run = BotsRun(config)
    try:
        output = "".join(run.output)
        line = next(line for line in run.output if line.startswith("Custom commands: "))
        assert line.startswith("Custom commands: /log answered at http://127.0.0.1:") and "/stream/commands/{type}" in line, output
        client = StreamChat(API_KEY, API_SECRET, base_url=run.base_url + "/", timeout=10.0)
        handler_url = client.get_app_settings()["app"]["custom_action_handler_url"]
        assert handler_url == line.split(" answered at ")[1].split(" ")[0]
        assert client.get_command("log")["description"] == "Log a workout"
        assert "log" in client.get_channel_type("messaging")["commands"][0]["name"]

        client.upsert_user({"id": "alice"})
        channel = client.channel("messaging", "general")
        channel.add_members(["alice"])
        question = channel.send_message({"text": "/log ride 20km 1h"}, "alice")["message"]
        assert question["type"] == "ephemeral" and question["text"] == "Log 20.0 km ride in 1h?"
        assert question["attachments"][0]["type"] == "workout" and question["attachments"][0]["workout-distance-meters"] == 20000
        assert [a["value"] for a in question["attachments"][1]["actions"]] == ["log", "cancel"]

        posted = client.run_message_action(question["id"], {"form_data": {"action": "log"}, "user_id": "alice"})["message"]
        assert posted["type"] == "regular" and posted["user"]["id"] == "alice"
        answer = wait_for(lambda: bot_messages(channel, "workout-bot", posted["id"]))
        assert answer[0]["text"] == "This week: 1 workout, 20.0 km, 1h 00m, 0 kcal.", answer

        refused = channel.send_message({"text": "/log ride 20km 21km"}, "alice")["message"]
        assert refused["type"] == "error" and refused["text"].startswith("Two distances: 21km is one too many.")

        # The CLI shows the ephemeral answer and presses a button by its value.
        send = [bots_binary(), "send", "--config", str(config), "--server", run.base_url, "--user", "bea", "--wait-for-replies", "3"]
        shown = subprocess.run(send + ["--text", "/log run 5km 25m"], capture_output=True, text=True, timeout=60)
        assert shown.returncode == 0, shown.stderr
        assert "Only bea sees the answer to /log: Log 5.0 km run in 25m?  [workout]  buttons: Log (log), Cancel (cancel)" in shown.stdout
        pressed = subprocess.run(send + ["--text", "/log run 5km 25m", "--press", "log"], capture_output=True, text=True, timeout=60)
        assert pressed.returncode == 0, pressed.stderr
        assert "Pressed Log: posted 5.0 km run in 25m (logged with /log)  [workout]" in pressed.stdout, pressed.stdout
        assert "workout-bot: This week: 1 workout, 5.0 km, 0h 25m, 0 kcal." in pressed.stdout, pressed.stdout
        wrong = subprocess.run(send + ["--text", "/log run 5km", "--press", "maybe"], capture_output=True, text=True, timeout=60)
        assert wrong.returncode != 0 and "--press maybe: the answer has no button of that value; its buttons: log, cancel" in wrong.stderr
    finally:
        assert run.terminate() == 0, "".join(run.output)
