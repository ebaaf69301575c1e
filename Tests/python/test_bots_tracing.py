"""`bots run` with a `tracing:` section sends its spans to an OTLP/HTTP collector, which reads
them with the official OpenTelemetry schema; the official Stream SDK plays the user."""

import socket
import subprocess
import time
from pathlib import Path

import pytest
from opentelemetry.proto.trace.v1.trace_pb2 import Span
from stream_chat import StreamChat

from conftest import bots_binary, wait_for
from otlp_collector import OTLPCollector
from test_bots_run import API_KEY, API_SECRET, BotsRun, bot_messages

WORKOUT = {"type": "workout", "workout-type": "run", "workout-distance-meters": 5000,
           "workout-duration-seconds": 1500, "workout-energy-cal": 400}


def write_config(folder: Path, tracing: str) -> Path:
    config = folder / "bots.yaml"
    config.write_text(f"""
server:
  api_key: {API_KEY}
  api_secret: {API_SECRET}
embedded:
  port: 0
  data: {folder}/data
{tracing}
bots:
  - name: workout
    kind: workout
    user: workout-bot
    channels: [messaging:general]
    database: {folder}/workouts.sqlite
""")
    return config


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def collector():
    running = OTLPCollector()
    yield running
    running.stop()


def post_workout(run):
    client = StreamChat(API_KEY, API_SECRET, base_url=run.base_url + "/", timeout=10.0)
    client.upsert_user({"id": "alice", "name": "Alice"})
    channel = client.channel("messaging", "general")
    channel.add_members(["alice"])
    sent = channel.send_message({"text": "morning run", "attachments": [WORKOUT]}, "alice")["message"]
    reply = wait_for(lambda: bot_messages(channel, "workout-bot", sent["id"]))[0]
    return sent, reply


def test_a_workout_and_its_answer_are_one_trace_from_the_delivery_to_the_servers_work(collector, tmp_path):
    config = write_config(tmp_path, f"""tracing:
  otlp: {collector.url}
  service: bots-test
  headers:
    x-collector-key: ${{COLLECTOR_KEY:-k-123}}""")
    run = BotsRun(config)
    try:
        sent, reply = post_workout(run)
        assert reply["attachments"][0]["type"] == "workout-summary"
        # SIGTERM: the tracer stops last, so the spans of the answer are sent before it exits.
        assert run.terminate() == 0
    finally:
        run.kill()

    assert collector.failures == [], "the official schema refused an export"
    assert all(path == "/v1/traces" for path, _, _ in collector.requests)
    assert all(headers.get("x-collector-key") == "k-123" for _, headers, _ in collector.requests)
    spans = collector.spans()
    delivery = [span for span in spans if span.name == "HandleMessage" and span.attributes.get("chat.message.id") == sent["id"]]
    assert len(delivery) == 1, spans
    delivery = delivery[0]
    assert delivery.kind == Span.SPAN_KIND_CONSUMER
    assert delivery.parent_span_id is None
    assert delivery.attributes["chatbotkit.bot"] == "workout"
    assert delivery.attributes["chat.channel.cid"] == "messaging:general"
    assert delivery.attributes["chatbotkit.attachment.types"] == ["workout"]
    assert delivery.resource["service.name"] == "bots-test"
    assert delivery.resource["service.instance.id"]

    # The answer: the handler's SendMessage, and the embedded server's span of it, joined by traceparent.
    sends = [span for span in spans if span.name == "SendMessage" and span.parent_span_id == delivery.span_id]
    assert len(sends) == 1, spans
    send = sends[0]
    assert send.kind == Span.SPAN_KIND_CLIENT and send.trace_id == delivery.trace_id
    assert send.attributes["http.response.status_code"] == 201
    served = [span for span in spans if span.parent_span_id == send.span_id]
    assert len(served) == 1, spans
    assert served[0].name == "POST /channels/{type}/{id}/message"
    assert served[0].kind == Span.SPAN_KIND_SERVER and served[0].trace_id == delivery.trace_id
    assert served[0].attributes["http.route"] == "/channels/{type}/{id}/message"
    assert served[0].attributes["url.path"] == "/channels/messaging/general/message"
    # The SDK sends no traceparent: the server's span of alice's post starts a trace of its own.
    assert any(span.name == "POST /channels/{type}/{id}/message" and span.parent_span_id is None for span in spans)


def test_a_collector_that_is_down_costs_the_bots_nothing(tmp_path):
    config = write_config(tmp_path, f"""tracing:
  otlp: http://127.0.0.1:{closed_port()}""")
    run = BotsRun(config)
    try:
        _, reply = post_workout(run)
        assert reply["attachments"][0]["type"] == "workout-summary"
        started = time.monotonic()
        assert run.terminate() == 0
        assert time.monotonic() - started < 20, "the last export gives up within its deadline"
    finally:
        run.kill()
    assert any("spans were dropped" in line and "cannot reach the collector" in line for line in run.output), "".join(run.output)


def test_the_doctor_checks_the_collector(collector, tmp_path):
    run = BotsRun(write_config(tmp_path, ""))
    try:
        base_url = run.base_url
        config = tmp_path / "doctor.yaml"
        for name, otlp, code, expected in [
            ("reachable", collector.url, 0, f"ok    tracing: the collector at {collector.url}/v1/traces takes spans"),
            ("down", f"http://127.0.0.1:{closed_port()}", 1, "FAIL  tracing: cannot reach the collector at"),
        ]:
            config.write_text(write_config(tmp_path, f"tracing:\n  otlp: {otlp}\n  sample: 0.25").read_text()
                              .replace("embedded:", f"  url: {base_url}\nembedded:", 1))
            result = subprocess.run([bots_binary(), "doctor", "--config", str(config), "--log-level", "critical"],
                                    capture_output=True, text=True, timeout=90, cwd=tmp_path)
            lines = [line for line in result.stdout.splitlines() if line[6:].startswith("tracing:")]
            assert len(lines) == 1 and lines[0].startswith(expected), (name, result.stdout, result.stderr)
            assert result.returncode == code, (name, result.stdout)
            if name == "reachable":
                assert "25% of traces as service bots" in lines[0]
    finally:
        run.terminate()
    assert collector.failures == []


@pytest.mark.parametrize("section, message", [
    ("tracing:\n  otlp: ftp://127.0.0.1:4318", 'tracing.otlp must be a collector\'s OTLP/HTTP address such as http://127.0.0.1:4318, found "ftp://127.0.0.1:4318"'),
    ("tracing:\n  service: bots", 'tracing needs "otlp"'),
    ("tracing:\n  otlp: http://127.0.0.1:4318\n  sample: 2", "tracing.sample must be a number from 0 (no traces) to 1 (every trace), found 2"),
    ("tracing:\n  otlp: http://127.0.0.1:4318\n  sample: most", "tracing.sample must be a number from 0 (no traces) to 1 (every trace), found most"),
    ("tracing:\n  otlp: http://127.0.0.1:4318\n  service: ''", "tracing.service is empty"),
    ("tracing:\n  otlp: http://127.0.0.1:4318\n  headers:\n    bad header: x", 'tracing.headers: "bad header" is not an HTTP header name'),
    ("tracing:\n  otlp: http://127.0.0.1:4318\n  exporter: zipkin", 'unknown key "exporter" in tracing'),
])
def test_a_bad_tracing_section_exits_78_saying_what_is_wrong(tmp_path, section, message):
    config = write_config(tmp_path, section)
    result = subprocess.run([bots_binary(), "run", "--config", str(config)], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert result.returncode == 78, result.stderr
    assert message in result.stderr
    assert f"{config}:" in result.stderr, "the error is located in the file"
