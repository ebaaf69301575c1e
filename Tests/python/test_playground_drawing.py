"""The playground draws what a chat app draws, and runs nothing it is sent: every built-in
attachment type and a live location, text and fields that hold HTML and `javascript:` links,
and the states of an AI reply on Stream's AI protocol (sent here through the official SDK, as
any bot on that protocol sends them), in real Chromium."""

import math
import struct
import zlib

from browser import keep_screenshot
from playground_support import GALLERY, shown_text, playground, module_browsers, bob_window, browsers, bob, sdk  # noqa: F401 (fixtures)

def png(width=96, height=64):
    """A real PNG: a blue-to-green gradient."""
    rows = b"".join(b"\x00" + bytes(v for x in range(width) for v in (40, 80 + x * 150 // width, 200 - y * 2)) for y in range(height))
    chunk = lambda kind, data: struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def wav(seconds=0.5, rate=8000):
    """A real WAV: a 440 Hz tone."""
    samples = b"".join(struct.pack("<h", int(12000 * math.sin(2 * math.pi * 440 * n / rate))) for n in range(int(seconds * rate)))
    return (b"RIFF" + struct.pack("<I", 36 + len(samples)) + b"WAVEfmt " + struct.pack("<IHHIIHH", 16, 1, 1, rate, rate * 2, 2, 16)
            + b"data" + struct.pack("<I", len(samples)) + samples)


def test_every_built_in_attachment_and_a_live_location_are_drawn_as_a_user_expects(playground, browsers, sdk, tmp_path):
    sdk.upsert_user({"id": "gallery", "name": "Gallery bot"})
    channel = sdk.channel("messaging", "gallery", data={"name": "Gallery"})
    channel.create("gallery")
    page = browsers("gina").open(playground.base_url, "gina", GALLERY, name="Gina")
    (tmp_path / "chart.png").write_bytes(png())
    (tmp_path / "tone.wav").write_bytes(wav())
    (tmp_path / "notes.txt").write_text("splits: 5:01, 4:58\n" * 100)
    image = channel.send_image(str(tmp_path / "chart.png"), "chart.png", {"id": "gallery"}, content_type="image/png")["file"]
    tone = channel.send_file(str(tmp_path / "tone.wav"), "tone.wav", {"id": "gallery"}, content_type="audio/wav")["file"]
    notes = channel.send_file(str(tmp_path / "notes.txt"), "notes.txt", {"id": "gallery"}, content_type="text/plain")["file"]
    attachments = [
        {"type": "image", "image_url": image, "fallback": "chart.png", "file_size": len(png()), "mime_type": "image/png"},
        {"type": "video", "asset_url": tone, "thumb_url": image, "title": "finish.webm", "mime_type": "video/webm", "file_size": 48000},
        {"type": "audio", "asset_url": tone, "title": "tone.wav", "mime_type": "audio/wav", "file_size": len(wav())},
        {"type": "voiceRecording", "asset_url": tone, "title": "voice.wav", "duration": 0.5, "waveform_data": [0.1, 0.6, 0.9, 0.4, 0.2] * 8},
        {"type": "file", "asset_url": notes, "title": "notes.txt", "mime_type": "text/plain", "file_size": 1900},
        {"type": "giphy", "title": "high five", "title_link": "https://giphy.com/gifs/high-five", "thumb_url": image},
        {"type": "image", "og_scrape_url": "https://runlog.example.com/posts/7", "title": "Run & coffee", "text": "An easy 5k.",
         "author_name": "RunLog", "title_link": "https://runlog.example.com/posts/7", "image_url": image},
        {"type": "route", "name": "Park loop", "distance_km": 5.2},
        {"type": "split", "name": "Park loop", "distance_km": 5.2, "tags": ["flat", "shade"]},
    ]
    channel.send_message({"text": "every kind of attachment", "attachments": attachments}, "gallery")
    shown = page.message("every kind of attachment", user="gallery")
    kinds = [node.get_attribute("data-type") for node in page.find_all(".attachment", shown)]
    assert kinds == ["image", "video", "audio", "voiceRecording", "file", "giphy", "linkPreview", "route", "split"]
    thumbnail = page.find(".attachment-image img", shown)
    assert "w=480" in thumbnail.get_attribute("src") and "h=320" in thumbnail.get_attribute("src") and "resize=clip" in thumbnail.get_attribute("src")
    page.wait(lambda _: page.script("return arguments[0].complete && arguments[0].naturalWidth", thumbnail) == 96, what="the thumbnail loaded")
    assert page.find(".attachment-video video", shown).get_attribute("poster") == image
    assert page.find(".attachment-audio audio", shown).get_attribute("src") == tone
    assert len(page.find_all(".attachment-voiceRecording .waveform span", shown)) == 40 and page.find(".duration", shown).text == "0:01"
    assert page.find(".attachment-file .file-name", shown).text == "notes.txt" and "1.9 KB · text/plain" in page.find(".attachment-file", shown).text
    assert page.find(".attachment-giphy img", shown).get_attribute("src") == image
    assert page.find(".link-preview .preview-title", shown).text == "Run & coffee"
    # The bot's own renderer draws its type; a type nobody registered is a card of its fields.
    assert page.find(".attachment-route .payload-card .route", shown).text == "🗺 Park loop 5.2 km"
    card = page.find(".attachment-split .payload-card.fields", shown).text
    assert "name\nPark loop" in card and "distance_km\n5.2" in card and 'tags\n["flat","shade"]' in card

    end_at = __import__("datetime").datetime.now(__import__("datetime").timezone.utc) + __import__("datetime").timedelta(minutes=30)
    walk = channel.send_message({"text": "out for a walk", "shared_location": {"latitude": 52.52, "longitude": 13.405, "end_at": end_at.isoformat()}},
                                "gallery")["message"]
    location = page.find(".location", page.message("out for a walk", user="gallery"))
    assert location.get_attribute("data-live") == "true" and page.find(".where", location).text == "52.52000, 13.40500"
    sdk.update_user_location("gallery", walk["id"], {"latitude": 52.529, "longitude": 13.405})
    page.wait(lambda _: page.find(".where", page.message("out for a walk")).text == "52.52900, 13.40500", what="the location moved")
    keep_screenshot(page, "playground-attachments", height=1700)


def test_html_and_javascript_links_in_a_message_run_no_script_and_show_as_text(playground, browsers, sdk):
    attack = '<img src=x onerror="window.__pwned=1">'
    sdk.upsert_user({"id": "mallory", "name": attack})
    channel = sdk.channel("messaging", "gallery")
    channel.add_members(["mallory"])
    page = browsers("gina").open(playground.base_url, "gina", GALLERY, name="Gina")
    channel.send_message({"text": f"{attack} javascript:window.__pwned=2 <script>window.__pwned=3</script>", "attachments": [
        {"type": "file", "asset_url": "javascript:window.__pwned=4", "title": attack},
        {"type": "image", "image_url": "javascript:window.__pwned=5", "fallback": attack},
        {"type": "video", "og_scrape_url": "javascript:window.__pwned=6", "title_link": "javascript:window.__pwned=7", "title": attack,
         "text": attack, "image_url": "x\" onerror=\"window.__pwned=8"},
        {"type": "workout", "workout-type": attack, "workout-distance-meters": attack},
        {"type": "anything", attack: attack, "link": "javascript:window.__pwned=9", "actions": [{"name": attack, "text": attack, "value": attack}]},
    ]}, "mallory")
    shown = page.message("<script>", user="mallory")
    assert page.find(".author", shown).text == attack
    assert page.find(".text", shown).text.startswith(attack)
    state = page.script("""
        const all = [...document.querySelectorAll('*')];
        return {
            pwned: window.__pwned === undefined ? null : window.__pwned,
            handlers: all.filter(node => [...node.attributes].some(a => a.name.toLowerCase().startsWith('on'))).length,
            scripts: [...document.scripts].map(s => s.getAttribute('src')),
            links: [...document.querySelectorAll('[href]')].map(node => node.getAttribute('href')),
            sources: [...document.querySelectorAll('[src]')].map(node => node.getAttribute('src')),
        };
    """)
    assert state["pwned"] is None and state["handlers"] == 0, state
    assert state["scripts"] == ["/playground/app.js"], state
    assert all(href.startswith(("http://", "https://", "/")) for href in state["links"]), state
    assert all(src.startswith(("http://", "https://", "/")) for src in state["sources"]), state
    for node in page.find_all("a[target='_blank']"):
        assert node.get_attribute("rel") == "noopener noreferrer"


def test_an_ai_reply_that_fails_shows_its_error_as_text_without_a_stop_button(playground, browsers, sdk):
    sdk.upsert_user({"id": "assistant", "name": "Assistant"})
    channel = sdk.channel("messaging", "gallery", data={"name": "Gallery"})
    channel.create("assistant")
    channel.add_members(["assistant"])
    page = browsers("gina").open(playground.base_url, "gina", GALLERY, name="Gina")
    reply_id = channel.send_message({"text": "", "ai_generated": True, "generating": True}, "assistant")["message"]["id"]
    reply = f".channel-main article.message.ai[data-id='{reply_id}']"

    def indicate(state):
        channel.send_event({"type": "ai_indicator.update", "ai_state": state, "message_id": reply_id}, "assistant")

    def shows(state, label):
        return lambda _: (page.find(f"{reply} .ai-indicator").get_attribute("data-state") == state
                          and page.find(f"{reply} .ai-state").text == label)
    indicate("AI_STATE_THINKING")
    page.wait(shows("AI_STATE_THINKING", "Thinking…"), what="thinking")
    indicate("AI_STATE_EXTERNAL_SOURCES")
    page.wait(shows("AI_STATE_EXTERNAL_SOURCES", "Checking sources…"), what="checking sources")
    assert page.find(f"{reply} .stop-generating").text == "Stop"
    attack = '<img src=x onerror="window.__pwned=1">'
    sdk.update_message_partial(reply_id, {"set": {"text": f"Half {attack}", "generating": True}}, "assistant")
    indicate("AI_STATE_GENERATING")
    page.wait(lambda _: shows("AI_STATE_GENERATING", "Generating…")(_) and shown_text(page, reply) == f"Half {attack}", what="the text so far")
    sdk.update_message_partial(reply_id, {"set": {"text": f"Half {attack}\n\n(The answer broke off.)", "generating": False,
                                                  "ai_error": {"message": attack, "detail": "the stream was cut"}}}, "assistant")
    indicate("AI_STATE_ERROR")
    page.wait(shows("AI_STATE_ERROR", f"Error: {attack}"), what="the error")
    assert not page.find_all(f"{reply} .stop-generating") and not page.find_all(f"{reply} img") and not page.find_all(f"{reply} .edited")
    assert page.script("return window.__pwned === undefined")
    channel.send_event({"type": "ai_indicator.clear", "message_id": reply_id}, "assistant")
    page.wait(lambda _: not page.find_all(f"{reply} .ai-indicator"), what="the indicator cleared")
