"""A loopback OTLP/HTTP collector for the tests. Every request body is read with the official
OpenTelemetry protobuf schema (`opentelemetry-proto` from PyPI), strictly: an unknown field,
a wrong type or a bad id fails the parse, and the failure is kept and answered with HTTP 400,
as a collector would. OTLP's JSON writes trace and span ids as hex, where protobuf's JSON
mapping has base64; the collector converts them first, as the OTLP specification says to."""

import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Span

ID_FIELDS = ("traceId", "spanId", "parentSpanId")


def _hex_ids_to_base64(value):
    if isinstance(value, dict):
        return {key: (base64.b64encode(bytes.fromhex(item)).decode() if key in ID_FIELDS and isinstance(item, str) and item
                      else _hex_ids_to_base64(item)) for key, item in value.items()}
    if isinstance(value, list):
        return [_hex_ids_to_base64(item) for item in value]
    return value


def parse_export(body: bytes) -> ExportTraceServiceRequest:
    """The export request in `body`; raises on anything the schema does not allow."""
    return json_format.Parse(json.dumps(_hex_ids_to_base64(json.loads(body))), ExportTraceServiceRequest(),
                             ignore_unknown_fields=False)


class ExportedSpan:
    """One span, with its resource's attributes, ids as hex."""

    def __init__(self, span, resource):
        self.span = span
        self.resource = resource
        self.name = span.name
        self.kind = span.kind
        self.trace_id = span.trace_id.hex()
        self.span_id = span.span_id.hex()
        self.parent_span_id = span.parent_span_id.hex() or None
        self.attributes = {item.key: _value(item.value) for item in span.attributes}

    def __repr__(self):
        return f"<{self.name} {Span.SpanKind.Name(self.kind)} {self.span_id} parent {self.parent_span_id}>"


def _value(value):
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_value(item) for item in value.array_value.values]
    return getattr(value, kind) if kind else None


class OTLPCollector:
    """Serves POST /v1/traces on 127.0.0.1, port 0, until `stop()`."""

    def __init__(self):
        self.requests = []
        self.failures = []
        self.lock = threading.Lock()
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                try:
                    export = parse_export(body)
                except Exception as error:  # the parse failure is the finding
                    with collector.lock:
                        collector.failures.append((self.path, str(error), body[:500]))
                    self._answer(400, {"code": 3, "message": str(error)})
                    return
                with collector.lock:
                    collector.requests.append((self.path, dict(self.headers), export))
                self._answer(200, {})

            def _answer(self, status, payload):
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def spans(self):
        with self.lock:
            exports = [export for _, _, export in self.requests]
        found = []
        for export in exports:
            for resource_spans in export.resource_spans:
                resource = {item.key: _value(item.value) for item in resource_spans.resource.attributes}
                for scope_spans in resource_spans.scope_spans:
                    found.extend(ExportedSpan(span, resource) for span in scope_spans.spans)
        return found

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)
