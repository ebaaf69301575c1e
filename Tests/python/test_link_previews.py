"""URL enrichment, proven with the official Python SDK: the dev server adds the preview of a
message's first link as the hosted service does, and answers GET /og. The linked pages come
from a small web server on a loopback port, run here."""

import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from stream_chat.base.exceptions import StreamAPIException

ARTICLE = b"""<!doctype html><html><head><title>Plain</title>
<meta property="og:title" content="Tempo run &amp; notes">
<meta property="og:description" content="8 km at threshold">
<meta property="og:image" content="/img/tempo.jpg">
<meta property="og:site_name" content="RunLog">
</head><body></body></html>"""


class Pages:
    """The web server: /article (Open Graph page), /img/tempo.jpg, /doc.pdf; anything else 404."""

    def __init__(self):
        self.hits = Counter()
        pages = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                pages.hits[self.path] += 1
                bodies = {"/article": ("text/html; charset=utf-8", ARTICLE), "/img/tempo.jpg": ("image/jpeg", b"\xff\xd8\xff\xe0 jpeg"),
                          "/doc.pdf": ("application/pdf", b"%PDF-1.4")}
                if self.path not in bodies:
                    self.send_error(404)
                    return
                content_type, body = bodies[self.path]
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path):
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


@pytest.fixture
def pages():
    site = Pages()
    yield site
    site.stop()


def test_first_link_gets_a_preview_on_send_and_edit(client, channel, pages):
    article = pages.url("/article")
    sent = channel.send_message({"text": f"today's session: {article}. Also {pages.url('/doc.pdf')}"}, "u2")["message"]
    assert sent["attachments"] == [{
        "type": "image", "title": "Tempo run & notes", "text": "8 km at threshold", "title_link": article,
        "author_name": "RunLog", "image_url": pages.url("/img/tempo.jpg"), "thumb_url": pages.url("/img/tempo.jpg"),
        "og_scrape_url": article,
    }]
    assert pages.hits["/doc.pdf"] == 0, "only the first link is enriched"
    assert client.get_message(sent["id"])["message"]["attachments"] == sent["attachments"]

    image = pages.url("/img/tempo.jpg")
    edited = client.update_message_partial(sent["id"], {"set": {"text": f"the photo: {image}"}}, "u2")["message"]
    assert edited["attachments"] == [{"type": "image", "image_url": image, "thumb_url": image, "og_scrape_url": image}]
    plain = client.update_message_partial(sent["id"], {"set": {"text": "no link any more"}}, "u2")["message"]
    assert plain["attachments"] == []
    assert plain["text"] == "no link any more"

    skipped = channel.send_message({"text": article}, "u2", skip_enrich_url=True)["message"]
    assert skipped["attachments"] == []
    missing = channel.send_message({"text": f"gone: {pages.url('/gone')}"}, "u2")["message"]
    assert missing["attachments"] == [] and missing["text"] == f"gone: {pages.url('/gone')}"


def test_og_endpoint_and_its_refusals(client, pages):
    article = pages.url("/article")
    preview = client.get("og", {"url": article})
    assert preview["title"] == "Tempo run & notes"
    assert preview["og_scrape_url"] == article
    assert "duration" in preview

    refusals = [
        ({}, "url is a required parameter"),
        ({"url": "ftp://127.0.0.1/file"}, "is not an http or https URL"),
        ({"url": "not a url"}, "is not an http or https URL"),
        ({"url": pages.url("/gone")}, "answered HTTP 404"),
        ({"url": pages.url("/doc.pdf")}, "is application/pdf, not a web page or media"),
    ]
    for params, reason in refusals:
        with pytest.raises(StreamAPIException) as refused:
            client.get("og", params)
        assert refused.value.status_code == 400
        assert refused.value.error_code == 4
        assert reason in refused.value.error_message, params


def test_async_enrichment_answers_first_and_adds_the_preview_after(client, channel, pages):
    client.update_app_settings(async_url_enrich_enabled=True)
    assert client.get_app_settings()["app"]["async_url_enrich_enabled"] is True
    sent = channel.send_message({"text": pages.url("/article")}, "u2")["message"]
    assert sent["attachments"] == []
    deadline = time.time() + 10
    attachments = []
    while time.time() < deadline and not attachments:
        attachments = client.get_message(sent["id"])["message"]["attachments"]
        time.sleep(0.05)
    assert [attachment["og_scrape_url"] for attachment in attachments] == [pages.url("/article")]

    with pytest.raises(StreamAPIException) as refused:
        client.update_app_settings(async_url_enrich_enabled="sometimes")
    assert refused.value.error_code == 4
    assert "async_url_enrich_enabled must be true or false" in refused.value.error_message
    assert client.get_app_settings()["app"]["async_url_enrich_enabled"] is True
