"""The peer of the commands benchmark: a Python custom command handler for the same `/log`
requests, as Stream's custom command guide writes one: `StreamChat.verify_webhook`, the body
parsed (`json.loads`, also `orjson.loads`), the arguments read into a workout (the same words
as the Swift bot takes), the message rewritten as an ephemeral answer with the workout and two
buttons, and dumped back (`json.dumps` / `orjson.dumps`). Untyped dicts. Prints requests/s,
best of N rounds."""

import hashlib
import hmac
import json
import sys

import orjson
from stream_chat import StreamChat

from rounds import best_rate

KEY = "bench-key"
SECRET = "bench-secret-of-at-least-32-bytes!"
UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400}


def duration(word):
    for suffix in ("ms", "s", "m", "h", "d"):
        if word.endswith(suffix) and not (suffix == "s" and word.endswith("ms")):
            try:
                value = float(word[: -len(suffix)])
            except ValueError:
                return None
            return value * UNITS[suffix] if value > 0 else None
    return None


def workout(arguments):
    result = {"type": "workout"}
    for word in arguments.lower().split():
        if word.endswith("km") and word[:-2].replace(".", "", 1).isdigit():
            result["workout-distance-meters"] = round(float(word[:-2]) * 1000)
        elif word.endswith("kcal") and word[:-4].isdigit():
            result["workout-energy-cal"] = int(word[:-4])
        elif (seconds := duration(word)) is not None:
            result["workout-duration-seconds"] = int(seconds)
        elif word.isalpha():
            result["workout-type"] = word
        else:
            return None
    return result


def main():
    path = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    with open(path, "rb") as corpus:
        events = [orjson.loads(line) for line in corpus.read().split(b"\n") if line]
    client = StreamChat(KEY, SECRET)
    requests = []
    for event in events:
        message = dict(event["message"], text="/log run 5km 25m 400kcal", command="log", args="run 5km 25m 400kcal")
        body = orjson.dumps({"message": message, "user": event["user"]})
        requests.append((body, hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()))
    buttons = [{"name": "action", "type": "button", "text": "Log", "style": "primary", "value": "log"},
               {"name": "action", "type": "button", "text": "Cancel", "style": "default", "value": "cancel"}]

    def handler(loads, dumps):
        def handle(body, signature):
            if not client.verify_webhook(body, signature):
                raise SystemExit("a signature did not verify")
            request = loads(body)
            message = request["message"]
            logged = workout(message["args"])
            message["type"] = "ephemeral"
            message["text"] = "Log %.1f km run?" % (logged["workout-distance-meters"] / 1000)
            message["attachments"] = [logged, {"type": "text", "actions": buttons}]
            return dumps({"message": message})
        return handle

    rates = {}
    for name, loads, dumps in (("json", json.loads, lambda o: json.dumps(o).encode()), ("orjson", orjson.loads, orjson.dumps)):
        handle = handler(loads, dumps)
        rates[name] = best_rate(requests, lambda request: handle(*request), rounds)
        print(f"verify_webhook + {name}.loads + /log + {name}.dumps: {rates[name]:,.0f} requests/s (best of {rounds} rounds)")
    print(f"RESULT commands_peer json_per_s={rates['json']:.0f} orjson_per_s={rates['orjson']:.0f}")


if __name__ == "__main__":
    main()
