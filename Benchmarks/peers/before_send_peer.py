"""The peer of the before-send benchmark: a plain Python Before Message Send hook, as one is
written from Stream's page with the official SDK. Each request: `StreamChat.verify_webhook`,
`json.loads`, then every attached file downloaded whole (requests, to a temporary file) and its
type read by python-magic (libmagic, as the Swift bot uses), judged by the same rule (a
program, or a type other than the name says, is refused), and answered with `json.dumps`.
Served by http.server's ThreadingHTTPServer on a free loopback port, which it prints, until
killed. `before_send_peer.py <api-key> <api-secret>`"""

import http.server
import json
import os
import sys
import tempfile

import magic
import requests
from stream_chat import StreamChat

PROGRAMS = {"application/x-executable", "application/x-pie-executable", "application/x-sharedlib", "application/x-dosexec",
            "application/vnd.microsoft.portable-executable", "application/x-mach-binary", "application/x-elf"}


def main():
    client = StreamChat(sys.argv[1], sys.argv[2])
    session = requests.Session()

    def judge(attachment):
        link = attachment.get("asset_url") or attachment.get("image_url")
        if not link:
            return None
        with tempfile.NamedTemporaryFile(delete=False) as file:
            with session.get(link, stream=True, timeout=30) as response:
                response.raise_for_status()
                for chunk in response.iter_content(1 << 20):
                    file.write(chunk)
        try:
            real = magic.from_file(file.name, mime=True)
        finally:
            os.unlink(file.name)
        declared = attachment.get("mime_type") or "application/octet-stream"
        name = attachment.get("title") or link.rsplit("/", 1)[-1]
        if real in PROGRAMS:
            return f"{name} was not posted: it is really an executable program ({real})"
        if real.split("/")[0] != declared.split("/")[0]:
            return f"{name} was not posted: its content is {real}, not the {declared} its name says"
        return None

    class Hook(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # The headers and the body go out in two writes: with Nagle's algorithm on, the body
        # waits for the client's delayed ACK (about 40 ms a request on loopback).
        disable_nagle_algorithm = True

        def do_POST(self):
            raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if not client.verify_webhook(raw, self.headers.get("X-Signature", "")):
                return self.answer(401, {"error": "bad signature"})
            body = json.loads(raw)
            for attachment in body["message"].get("attachments") or []:
                reason = judge(attachment)
                if reason:
                    return self.answer(200, {"message": {"type": "error", "text": reason}})
            self.answer(200, {})

        def answer(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    print(f"listening on {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
