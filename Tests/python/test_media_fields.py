"""What `bots send` attaches from a local file carries the file's own size, length and waveform,
as the official SDK reads the message back from the dev server. The files are written here by
Python's own `wave` and `zlib` modules, independently of the Swift side."""

import math
import struct
import subprocess
import wave
import zlib
from pathlib import Path

import pytest

from conftest import API_KEY, API_SECRET, DevServerProcess, bots_binary


def write_png(path: Path, width: int, height: int):
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    rows = b"".join(b"\x00" + b"\x40\x80\xc0" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def write_wav(path: Path, seconds: float, rate: int = 16_000):
    """A 300 Hz tone, loud for the first half and quiet for the second."""
    frames = int(seconds * rate)
    samples = b"".join(
        struct.pack("<h", int((0.8 if i < frames // 2 else 0.1) * 32767 * math.sin(2 * math.pi * 300 * i / rate)))
        for i in range(frames))
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(samples)


@pytest.fixture
def server(tmp_path):
    process = DevServerProcess(tmp_path / "data").start()
    yield process
    process.stop()


def send(server, tmp_path, *arguments) -> str:
    config = tmp_path / "bots.yaml"
    config.write_text(f"server: {{url: {server.base_url}, api_key: {API_KEY}, api_secret: {API_SECRET}}}\nbots: []\n")
    result = subprocess.run([bots_binary(), "send", "--config", str(config), "--channel", "messaging:media", "--user", "alice",
                             "--wait-for-replies", "0", *arguments], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.split("Sent ")[1].split(" ")[0]


def test_an_image_carries_its_size_and_a_voice_recording_its_length_and_waveform(server, tmp_path):
    photo = tmp_path / "photo.png"
    write_png(photo, 123, 45)
    memo = tmp_path / "memo.wav"
    write_wav(memo, 2.0)
    client = server.client()

    attachment = client.get_message(send(server, tmp_path, "--file", str(photo)))["message"]["attachments"][0]
    assert (attachment["type"], attachment["original_width"], attachment["original_height"]) == ("image", 123, 45)

    sent = send(server, tmp_path, "--file", str(memo), "--file-type", "voiceRecording")
    attachment = client.get_message(sent)["message"]["attachments"][0]
    assert attachment["type"] == "voiceRecording" and attachment["duration"] == 2.0
    waveform = attachment["waveform_data"]
    assert len(waveform) == 100
    assert all(0.78 <= value <= 0.81 for value in waveform[:50]), waveform[:50]
    assert all(0.09 <= value <= 0.11 for value in waveform[50:]), waveform[50:]


def test_a_file_whose_name_lies_is_refused_as_an_image_and_sent_as_a_file_without_a_size(server, tmp_path):
    fake = tmp_path / "fake.png"
    fake.write_bytes(b"not a picture at all")
    config = tmp_path / "bots.yaml"
    send(server, tmp_path, "--text", "hello")  # writes the configuration
    refused = subprocess.run([bots_binary(), "send", "--config", str(config), "--channel", "messaging:media", "--user", "alice",
                              "--wait-for-replies", "0", "--file", str(fake)], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert refused.returncode == 1
    assert "is not a valid image/png image" in refused.stderr and "upload it as a file instead" in refused.stderr

    attachment = server.client().get_message(send(server, tmp_path, "--file", str(fake), "--file-type", "file"))["message"]["attachments"][0]
    assert attachment["type"] == "file" and "original_width" not in attachment and "duration" not in attachment
    assert attachment["file_size"] == len(b"not a picture at all")
