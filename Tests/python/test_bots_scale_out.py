"""One bot on two nodes, end to end: two `bots run` with one `scale_out:` section, against a
separate `bots serve` and a real PostgreSQL; the official Python SDK posts. Each workout is
answered once, by one node; when a node is killed (SIGKILL), the other takes its channels over
once their leases run out; a node stopped with SIGTERM gives its leases up."""

import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from conftest import API_KEY, API_SECRET, DevServerProcess, bots_binary, wait_for
from postgres_server import PostgresServer
from test_bots_run import BotsRun

CHANNELS = [f"gym-{n}" for n in range(1, 7)]
WORKOUT = {"type": "workout", "workout-type": "run", "workout-distance-meters": 5000,
           "workout-duration-seconds": 1500, "workout-energy-cal": 400}


@pytest.fixture
def postgres():
    server = PostgresServer().start()
    yield server
    server.stop()


@pytest.fixture
def server(tmp_path):
    process = DevServerProcess(tmp_path / "data").start()
    yield process
    process.stop()


def write_config(folder: Path, server_url: str, postgres_url: str) -> Path:
    config = folder / "bots.yaml"
    config.write_text(f"""
server:
  url: {server_url}
  api_key: {API_KEY}
  api_secret: {API_SECRET}
scale_out:
  postgres: {postgres_url}
  node: ${{NODE}}
  lease: 2s
bots:
  - name: workout
    kind: workout
    user: workout-bot
    channels: [{", ".join(f"messaging:{name}" for name in CHANNELS)}]
    database: ${{NODE_DATABASE}}
""")
    return config


def node(config: Path, name: str) -> BotsRun:
    env = {**os.environ, "NODE": name, "NODE_DATABASE": str(config.parent / f"workouts-{name}.sqlite")}
    return BotsRun(config, env=env)


def gyms(server):
    client = server.client()
    client.upsert_user({"id": "alice", "name": "Alice"})
    channels = []
    for name in CHANNELS:
        channel = client.channel("messaging", name)
        channel.create("alice")
        channel.add_members(["alice"])
        channels.append(channel)
    return channels


def answers(channel, message_id):
    messages = channel.query(messages={"limit": 100})["messages"]
    ids = [message["id"] for message in messages]
    return [m for m in messages[ids.index(message_id) + 1:] if m["user"]["id"] == "workout-bot"]


def owners(postgres) -> dict:
    return {cid: owner for cid, owner in postgres.sql(
        "SELECT cid, coalesce(owner, '') FROM chatbotkit_channel_leases WHERE bot = 'workout' AND expires_at > now()")}


def post_everywhere(channels, text):
    return [channel.send_message({"text": text, "attachments": [WORKOUT]}, "alice")["message"] for channel in channels]


def test_two_nodes_answer_each_workout_once_and_the_survivor_of_a_crash_takes_the_channels_over(server, postgres, tmp_path):
    channels = gyms(server)
    config = write_config(tmp_path, server.base_url, postgres.url)
    first, second = node(config, "node-a"), node(config, "node-b")
    try:
        # The channels are shared out: both nodes hold some, no channel is held twice.
        assert wait_for(lambda: sorted(set(owners(postgres).values())) == ["node-a", "node-b"] and len(owners(postgres)) == 6, timeout=15)
        # The doctor reads who holds what, and takes nothing.
        doctor = subprocess.run([bots_binary(), "doctor", "--config", str(config)], capture_output=True, text=True, timeout=60,
                                env={**os.environ, "NODE": "doctor", "NODE_DATABASE": str(tmp_path / "doctor.sqlite")})
        assert doctor.returncode == 0, doctor.stdout
        line = next(line for line in doctor.stdout.splitlines() if "scale_out" in line)
        shares = {name: int(count) for name, count in re.findall(r"(node-[ab]) \((\d+)\)", line)}
        assert line.startswith("ok    scale_out: PostgreSQL at postgres:///postgres?host="), line
        assert sorted(shares) == ["node-a", "node-b"] and sum(shares.values()) == 6, line
        sent = post_everywhere(channels, "monday")
        for channel, message in zip(channels, sent):
            assert wait_for(lambda: answers(channel, message["id"]))
        time.sleep(1)
        for channel, message in zip(channels, sent):
            assert len(answers(channel, message["id"])) == 1, f"{channel.id} is answered once"

        held_by_a = [cid for cid, owner in owners(postgres).items() if owner == "node-a"]
        # A conversation node-a starts is in PostgreSQL, for whichever node holds its channel next.
        goal_channel = next(channel for channel in channels if f"messaging:{channel.id}" in held_by_a)
        asked = goal_channel.send_message({"text": "/goal"}, "alice")["message"]
        question = wait_for(lambda: answers(goal_channel, asked["id"]))[0]["text"]
        assert question.startswith("How far do you want to go each week?"), question
        assert wait_for(lambda: postgres.sql("SELECT user_id, name, state FROM chatbotkit_conversations")) == [
            ["alice", "GoalSetup", '{"distance":{}}']]
        first.kill()
        # Posted while node-a's leases still run: answered once node-b takes them over.
        missed = post_everywhere(channels, "tuesday")
        for channel, message in zip(channels, missed):
            assert wait_for(lambda: answers(channel, message["id"]), timeout=20), f"{channel.id} is answered after the crash"
        assert set(owners(postgres).values()) == {"node-b"}
        time.sleep(1)
        for channel, message in zip(channels, missed):
            assert len(answers(channel, message["id"])) == 1, f"{channel.id} is answered once"
        assert held_by_a, "node-a held channels before the crash"
        # node-b takes the answer to node-a's question, and asks the next one.
        answer = goal_channel.send_message({"text": "40km"}, "alice")["message"]
        assert wait_for(lambda: answers(goal_channel, answer["id"]))[0]["text"] == (
            "Which workouts count toward 40.0 km a week? Say run, ride, swim, walk… or any.")
    finally:
        first.kill()
        code = second.terminate()
    assert code == 0
    # A graceful stop gives the leases up, with how far each channel was handled.
    rows = postgres.sql("SELECT owner IS NULL, handled_through IS NOT NULL FROM chatbotkit_channel_leases WHERE bot = 'workout'")
    assert rows == [["t", "t"]] * 6
    # node-b left; node-a, killed, is only forgotten once its announcement is a day old.
    assert postgres.sql("SELECT node, expires_at < now() FROM chatbotkit_nodes") == [["node-a", "t"]]


@pytest.mark.parametrize("section, expected", [
    ("scale_out:\n  postgres: mysql://root@db/app\n", "scale_out.postgres must be a PostgreSQL URL"),
    ("scale_out:\n  postgres: postgres://db/app\n  lease: 100ms\n", "scale_out.lease must be at least 1s"),
    ("scale_out:\n  postgres: postgres://db/app\n  shards: 4\n", "shards"),
    ("scale_out:\n  postgres: postgres://db/app?sslmode=sometimes\n", "sslmode sometimes"),
])
def test_a_bad_scale_out_section_exits_78_and_says_what_is_wrong(tmp_path, section, expected):
    config = tmp_path / "bots.yaml"
    config.write_text(f"""
server:
  url: http://127.0.0.1:9
  api_key: {API_KEY}
  api_secret: {API_SECRET}
{section}bots:
  - name: workout
    kind: workout
    channels: [messaging:gym]
    database: {tmp_path}/workouts.sqlite
""")
    result = subprocess.run([bots_binary(), "run", "--config", str(config)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 78, result.stdout + result.stderr
    assert expected in result.stderr


def test_scale_out_without_a_shared_server_is_refused(tmp_path):
    config = tmp_path / "bots.yaml"
    config.write_text(f"""
server:
  api_key: {API_KEY}
  api_secret: {API_SECRET}
scale_out:
  postgres: postgres://db/app
bots:
  - name: workout
    kind: workout
    channels: [messaging:gym]
""")
    result = subprocess.run([bots_binary(), "run", "--config", str(config)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 78
    assert "scale_out needs server.url" in result.stderr


def test_the_doctor_fails_a_lease_store_it_cannot_reach(server, tmp_path):
    config = write_config(tmp_path, server.base_url, "postgres:///postgres?host=/tmp/cbk-no-such-server&user=postgres")
    env = {**os.environ, "NODE": "node-a", "NODE_DATABASE": str(tmp_path / "w.sqlite")}
    result = subprocess.run([bots_binary(), "doctor", "--config", str(config)], capture_output=True, text=True, timeout=90, env=env)
    assert result.returncode == 1
    line = next(line for line in result.stdout.splitlines() if "scale_out" in line)
    # The pool keeps trying to connect, so the call may time out before it fails.
    assert line.startswith("FAIL  scale_out: the lease store ") and "read the nodes" in line, line
    assert "check scale_out.postgres" in line


def test_a_node_that_cannot_reach_its_lease_store_does_not_start(server, tmp_path):
    config = write_config(tmp_path, server.base_url, "postgres:///postgres?host=/tmp/cbk-no-such-server&user=postgres")
    env = {**os.environ, "NODE": "node-a", "NODE_DATABASE": str(tmp_path / "w.sqlite")}
    result = subprocess.run([bots_binary(), "run", "--config", str(config)], capture_output=True, text=True, timeout=90, env=env)
    assert result.returncode != 0
    assert "cannot reach its lease store (node node-a)" in result.stdout + result.stderr


def test_a_second_bots_run_with_a_running_node_name_refuses_to_start(server, postgres, tmp_path):
    gyms(server)
    config = write_config(tmp_path, server.base_url, postgres.url)
    first = node(config, "node-a")
    try:
        env = {**os.environ, "NODE": "node-a", "NODE_DATABASE": str(tmp_path / "second.sqlite")}
        result = subprocess.run([bots_binary(), "run", "--config", str(config)], capture_output=True, text=True, timeout=90, env=env)
        assert result.returncode != 0
        assert "node name node-a is taken by another running process of bot workout" in result.stdout + result.stderr
        # The running node keeps every channel.
        assert set(owners(postgres).values()) == {"node-a"} and len(owners(postgres)) == 6
    finally:
        assert first.terminate() == 0


def test_a_database_that_refuses_the_connection_says_why(server, postgres, tmp_path):
    # The pool keeps retrying a refused connection; the error still says what the server said.
    config = write_config(tmp_path, server.base_url, postgres.url.replace("user=postgres", "user=nobody"))
    env = {**os.environ, "NODE": "node-a", "NODE_DATABASE": str(tmp_path / "w.sqlite")}
    result = subprocess.run([bots_binary(), "run", "--config", str(config)], capture_output=True, text=True, timeout=90, env=env)
    assert result.returncode != 0
    assert 'cannot reach its lease store (node node-a)' in result.stdout + result.stderr
    assert 'connecting fails: role "nobody" does not exist' in result.stdout + result.stderr
