"""The peer of `ChatBenchmarks probe`: the same WAV's length and 100-value peak waveform with
Python's `wave` module and C `audioop.max`, a bucket of frames at a time; best of `passes`."""

import audioop
import os
import sys
import wave

from rounds import best_seconds


def waveform(path: str, buckets: int = 100):
    with wave.open(path, "rb") as source:
        frames, width, rate = source.getnframes(), source.getsampwidth(), source.getframerate()
        full_scale = float(1 << (8 * width - 1))
        peaks = []
        for bucket in range(buckets):
            count = (bucket + 1) * frames // buckets - bucket * frames // buckets
            peaks.append(round(min(audioop.max(source.readframes(count), width) / full_scale, 1.0), 3))
        return frames / rate, peaks


def main():
    path, passes = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 5
    size = os.path.getsize(path)
    results = []
    best = best_seconds(passes, lambda: results.append(waveform(path)))
    duration, peaks = results[-1]
    assert len(peaks) == 100
    print(f"wave + audioop.max on the same file ({duration:.0f} s): {best:.3f} s ({size / 1e6 / best:.0f} MB/s)")
    print(f"RESULT probe_peer python_mb_per_s={size / 1e6 / best:.0f}")


if __name__ == "__main__":
    main()
