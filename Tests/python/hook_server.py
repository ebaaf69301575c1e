"""An app's hook of our own on a loopback port, as the dev server calls it: a Before Message
Send hook (test_before_send.py) or a custom command handler (test_custom_commands.py)."""

import http.server
import json
import threading


class HookServer:
    """Records each request (path, headers, raw body) and answers `answer(body)`: a status and a
    JSON-able body, or bytes sent as they are. `url` is `path` on its port. Stopped at the end of
    its test."""

    def __init__(self, answer, path):
        self.requests = []
        self.answer = answer
        self.lock = threading.Lock()
        hook = self

        class RequestHandler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with hook.lock:
                    hook.requests.append((self.path, dict(self.headers.items()), raw))
                status, body = hook.answer(json.loads(raw))
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the server gave up waiting

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), RequestHandler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}{path}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def bodies(self):
        with self.lock:
            return [json.loads(raw) for _, _, raw in self.requests]

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)
