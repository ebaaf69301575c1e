"""Uploads one file with the official Python SDK's send_file (which reads the whole file into
memory) and prints MB/s. Its peak RSS is measured by the parent (run_uploads.py)."""

import sys
import time

from stream_chat import StreamChat


def main():
    base_url, api_key, api_secret, path = sys.argv[1:5]
    client = StreamChat(api_key, api_secret, base_url=base_url + "/", timeout=600.0)
    client.upsert_user({"id": "bench-python"})
    channel = client.channel("messaging", "bench")
    channel.create("bench-python")
    start = time.perf_counter()
    response = channel.send_file(path, path.rsplit("/", 1)[-1], {"id": "bench-python"})
    elapsed = time.perf_counter() - start
    assert response["file"], response
    print(f"elapsed={elapsed:.3f}")


if __name__ == "__main__":
    main()
