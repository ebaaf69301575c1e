"""The peer of the webhook benchmark: what a Python webhook handler does with the official SDK
for each request of the same corpus: `StreamChat.verify_webhook` (HMAC-SHA256 of the body with
the secret) and `json.loads` (also `orjson.loads`), after `gzip.decompress` for gzipped bodies.
Untyped: no event model, no queue, no dedup. Prints requests/s, best of N rounds."""

import gzip
import hashlib
import hmac
import json
import sys

import orjson
from stream_chat import StreamChat

from rounds import best_rate

KEY = "bench-key"
SECRET = "bench-secret-of-at-least-32-bytes!"


def measure(name, handle, requests, rounds):
    rate = best_rate(requests, lambda request: handle(*request), rounds)
    print(f"{name}: {rate:,.0f} requests/s (best of {rounds} rounds)")
    return rate


def main():
    path = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    with open(path, "rb") as corpus:
        lines = [line for line in corpus.read().split(b"\n") if line]
    client = StreamChat(KEY, SECRET)
    signed = [(line, hmac.new(SECRET.encode(), line, hashlib.sha256).hexdigest()) for line in lines]
    zipped = [(gzip.compress(line), signature) for line, signature in signed]

    def plain(loads):
        def handle(body, signature):
            if not client.verify_webhook(body, signature):
                raise SystemExit("a signature did not verify")
            return loads(body)
        return handle

    def unzipping(loads):
        inner = plain(loads)
        return lambda body, signature: inner(gzip.decompress(body), signature)

    json_plain = measure("verify_webhook + json.loads", plain(json.loads), signed, rounds)
    orjson_plain = measure("verify_webhook + orjson.loads", plain(orjson.loads), signed, rounds)
    json_gzip = measure("gzip.decompress + verify_webhook + json.loads", unzipping(json.loads), zipped, rounds)
    orjson_gzip = measure("gzip.decompress + verify_webhook + orjson.loads", unzipping(orjson.loads), zipped, rounds)
    print(f"RESULT webhook_peer json_plain_per_s={json_plain:.0f} orjson_plain_per_s={orjson_plain:.0f} "
          f"json_gzip_per_s={json_gzip:.0f} orjson_gzip_per_s={orjson_gzip:.0f}")


if __name__ == "__main__":
    main()
