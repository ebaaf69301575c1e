"""Polls against the dev server, through the official Python SDK's client (its signing and
requests; this SDK version has no poll methods, so the calls name the REST paths Stream's
other SDKs use)."""

import requests

from conftest import API_KEY, refused, user_headers


def create_poll(client, **fields):
    return client.post("polls", data={"user_id": "bot-1", **fields})["poll"]


def vote(client, message_id, poll, user_id, **ballot):
    return client.post(f"messages/{message_id}/polls/{poll['id']}/vote", data={"vote": ballot, "user_id": user_id})["vote"]


def test_a_poll_is_sent_voted_on_and_closed(client, channel):
    channel.add_members(["u2"])
    poll = create_poll(client, name="Group run: which day?", options=[{"text": "Sat"}, {"text": "Sun", "distance": 10}], mood="keen")
    sat, sun = (option["id"] for option in poll["options"])
    assert poll["name"] == "Group run: which day?" and poll["mood"] == "keen" and poll["options"][1]["distance"] == 10
    assert poll["created_by_id"] == "bot-1" and poll["vote_count"] == 0 and poll["is_closed"] is False
    assert poll["voting_visibility"] == "public" and poll["enforce_unique_vote"] is False and poll["max_votes_allowed"] is None

    message = channel.send_message({"id": "plan", "text": "Vote!", "poll_id": poll["id"]}, "bot-1")["message"]
    assert message["poll"]["id"] == poll["id"] and message["poll"]["options"] == poll["options"]

    first = vote(client, "plan", poll, "u2", option_id=sat)
    assert first["option_id"] == sat and first["user_id"] == "u2" and first["is_answer"] is False
    assert vote(client, "plan", poll, "u2", option_id=sat)["id"] == first["id"], "the same vote again changes nothing"
    vote(client, "plan", poll, "u2", option_id=sun)
    vote(client, "plan", poll, "bot-1", option_id=sun)
    seen = client.get(f"polls/{poll['id']}", params={"user_id": "u2"})["poll"]
    assert seen["vote_count"] == 3 and seen["vote_counts_by_option"] == {sat: 1, sun: 2}
    assert sorted(v["option_id"] for v in seen["own_votes"]) == sorted([sat, sun])
    assert [v["user_id"] for v in seen["latest_votes_by_option"][sun]] == ["bot-1", "u2"], "newest first"
    assert client.get_message("plan")["message"]["poll"]["vote_count"] == 3

    on_sun = client.post(f"polls/{poll['id']}/votes", data={"filter": {"option_id": sun}})["votes"]
    assert sorted(v["user_id"] for v in on_sun) == ["bot-1", "u2"]
    assert [v["user_id"] for v in client.post(f"polls/{poll['id']}/votes", data={"filter": {"user_id": {"$in": ["bot-1"]}}})["votes"]] == ["bot-1"]

    client.delete(f"messages/plan/polls/{poll['id']}/vote/{first['id']}", params={"user_id": "u2"})
    assert client.get(f"polls/{poll['id']}")["poll"]["vote_counts_by_option"] == {sun: 2}

    closed = client.patch(f"polls/{poll['id']}", data={"set": {"is_closed": True, "mood": "done"}, "unset": ["description"]})["poll"]
    assert closed["is_closed"] is True and closed["mood"] == "done"
    refused(lambda: vote(client, "plan", poll, "u2", option_id=sat), 400, 4, f"poll {poll['id']} is closed for voting")

    client.delete(f"polls/{poll['id']}")
    refused(lambda: client.get(f"polls/{poll['id']}"), 404, 16, f"poll {poll['id']} does not exist")
    assert "poll" not in client.get_message("plan")["message"], "a deleted poll leaves its message"


def test_single_choice_limits_and_answers(client, channel):
    channel.add_members(["u2"])
    single = create_poll(client, name="Pace?", options=[{"text": "easy"}, {"text": "hard"}], enforce_unique_vote=True)
    easy, hard = (option["id"] for option in single["options"])
    channel.send_message({"id": "pace", "text": "Pace?", "poll_id": single["id"]}, "bot-1")
    first = vote(client, "pace", single, "u2", option_id=easy)
    changed = vote(client, "pace", single, "u2", option_id=hard)
    assert changed["id"] == first["id"] and changed["option_id"] == hard, "a single-choice vote replaces the one before"
    assert client.get(f"polls/{single['id']}")["poll"]["vote_counts_by_option"] == {hard: 1}

    limited = create_poll(client, name="Two?", options=[{"text": "a"}, {"text": "b"}, {"text": "c"}], max_votes_allowed=2,
                          allow_answers=True, voting_visibility="anonymous")
    a, b, c = (option["id"] for option in limited["options"])
    channel.send_message({"id": "two", "text": "Pick two", "poll_id": limited["id"]}, "bot-1")
    vote(client, "two", limited, "u2", option_id=a)
    vote(client, "two", limited, "u2", option_id=b)
    refused(lambda: vote(client, "two", limited, "u2", option_id=c), 400, 4,
            f"user u2 already has 2 of the 2 votes poll {limited['id']} allows; remove one first")
    answer = vote(client, "two", limited, "u2", answer_text="Either, really")
    again = vote(client, "two", limited, "u2", answer_text="Make it b")
    assert again["id"] == answer["id"] and again["answer_text"] == "Make it b" and again["is_answer"] is True
    seen = client.get(f"polls/{limited['id']}")["poll"]
    assert seen["answers_count"] == 1 and seen["vote_count"] == 2
    assert "user_id" not in seen["latest_answers"][0], "an anonymous poll hides who voted"
    assert all("user" not in v for v in client.post(f"polls/{limited['id']}/votes", data={})["votes"])
    own = client.get(f"polls/{limited['id']}", params={"user_id": "u2"})["poll"]["own_votes"]
    assert len(own) == 3 and all(v["user_id"] == "u2" for v in own), "a voter sees its own votes"


def test_bad_polls_and_votes_are_refused_and_change_nothing(server, client, channel):
    channel.add_members(["u2"])
    refused(lambda: create_poll(client, options=[{"text": "a"}]), 400, 4, "name is required")
    refused(lambda: create_poll(client, name="x", options="a, b"), 400, 4, "options must be a list")
    refused(lambda: create_poll(client, name="x", options=[{"text": "a"}, {"text": "a"}]), 400, 4, "options[1] repeats \"a\"")
    refused(lambda: create_poll(client, name="x", options=[{"value": "a"}]), 400, 4, "options[0] needs a text")
    refused(lambda: create_poll(client, name="x", max_votes_allowed=11), 400, 4, "max_votes_allowed must be between 1 and 10")
    refused(lambda: create_poll(client, name="x", voting_visibility="secret"), 400, 4, "voting_visibility must be public or anonymous")
    refused(lambda: create_poll(client, name="x", enforce_unique_vote=True, max_votes_allowed=2), 400, 4,
            "enforce_unique_vote allows one vote each")

    poll = create_poll(client, name="Day?", options=[{"text": "Sat"}])
    [sat] = [option["id"] for option in poll["options"]]
    refused(lambda: channel.send_message({"text": "mine", "poll_id": poll["id"]}, "u2"), 400, 4,
            f"poll {poll['id']} was created by bot-1; only its creator may send it")
    refused(lambda: channel.send_message({"text": "ghost", "poll_id": "ghost"}, "bot-1"), 404, 16, "poll ghost does not exist")
    channel.send_message({"id": "day", "text": "Day?", "poll_id": poll["id"]}, "bot-1")
    refused(lambda: channel.send_message({"text": "again", "poll_id": poll["id"]}, "bot-1"), 400, 4,
            f"poll {poll['id']} was already sent in a message")
    channel.send_message({"id": "plain", "text": "no poll"}, "bot-1")

    refused(lambda: vote(client, "day", poll, "outsider", option_id=sat), 400, 4, "user outsider is not a member of channel messaging:general")
    refused(lambda: vote(client, "day", poll, "u2", option_id="nope"), 400, 4, f"poll {poll['id']} has no option nope")
    refused(lambda: vote(client, "day", poll, "u2", answer_text="Sunday"), 400, 4, f"poll {poll['id']} does not take answers")
    refused(lambda: vote(client, "day", poll, "u2"), 400, 4, "a vote has either option_id or answer_text")
    refused(lambda: vote(client, "plain", poll, "u2", option_id=sat), 400, 4, f"message plain does not carry poll {poll['id']}")
    refused(lambda: client.delete(f"messages/day/polls/{poll['id']}/vote/nope", params={"user_id": "u2"}), 404, 16,
            f"user u2 has no vote nope on poll {poll['id']}")
    refused(lambda: client.patch(f"polls/{poll['id']}", data={"set": {"options": []}}), 400, 4,
            "options cannot be changed with a partial update")
    refused(lambda: client.patch(f"polls/{poll['id']}", data={"unset": ["name"]}), 400, 4, "name cannot be unset")
    refused(lambda: client.post(f"polls/{poll['id']}/votes", data={"filter": {"created_at": {"$gt": "2026-01-01T00:00:00Z"}}}),
            400, 4, "filter field \"created_at\" is not supported by the dev server")
    refused(lambda: client.post(f"polls/{poll['id']}/votes", data={"filter": {"user_id": {"$in": ["u2", 3]}}}), 400, 4,
            "filter on user_id must be a string, {\"$eq\": ...} or {\"$in\": [...]}")
    as_voter = requests.patch(server.url(f"/polls/{poll['id']}?api_key={API_KEY}"), json={"set": {"is_closed": True}},
                              headers=user_headers(client, "u2"))
    assert as_voter.status_code == 403 and "only its creator may change it" in as_voter.json()["message"]
    seen = client.get(f"polls/{poll['id']}")["poll"]
    assert seen["vote_count"] == 0 and seen["is_closed"] is False, "nothing refused changed the poll"
