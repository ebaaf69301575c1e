"""The peer of the tracing benchmark: OpenTelemetry's official Python SDK (BatchSpanProcessor
and the OTLP/HTTP exporter, protobuf) making the same spans as ChatBenchmarks' tracer pass:
one span per delivery with the four attributes ChatBotKit sets, sent in batches of 512 to a
loopback collector that takes every request. The queue holds every span, so none is dropped
and the time is that of making and sending them all. Prints spans/s, best of N rounds."""

import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import SpanKind


class Sink(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    received = 0

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        self.rfile.read(length)
        Sink.received += length
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def one_round(endpoint, count):
    provider = TracerProvider(resource=Resource.create({"service.name": "peer"}))
    provider.add_span_processor(BatchSpanProcessor(
        OTLPSpanExporter(endpoint=endpoint), max_queue_size=count, max_export_batch_size=512, schedule_delay_millis=5000))
    tracer = provider.get_tracer("peer")
    start = time.perf_counter()
    for index in range(count):
        with tracer.start_as_current_span("HandleMessage", kind=SpanKind.CONSUMER) as span:
            span.set_attribute("chatbotkit.bot", "bench")
            span.set_attribute("chat.channel.cid", "messaging:bench")
            span.set_attribute("chat.message.id", f"message-{index}")
            span.set_attribute("chatbotkit.attachment.types", ["image", "file", "workout"])
    provider.force_flush(timeout_millis=120_000)
    elapsed = time.perf_counter() - start
    provider.shutdown()
    return elapsed


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    server = ThreadingHTTPServer(("127.0.0.1", 0), Sink)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    endpoint = f"http://127.0.0.1:{server.server_address[1]}/v1/traces"
    best = min(one_round(endpoint, count) for _ in range(rounds))
    server.shutdown()
    rate = count / best
    print(f"OpenTelemetry Python SDK (BatchSpanProcessor + OTLP/HTTP protobuf): {rate:,.0f} spans/s made and sent "
          f"({count} spans, best of {rounds}; {Sink.received / 1e6:.1f} MB received in all)")
    print(f"RESULT tracing_peer python_spans_per_s={rate:.0f}")


if __name__ == "__main__":
    main()
