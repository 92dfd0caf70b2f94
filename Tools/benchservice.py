"""Set-up shared by the service benchmarks (Tools/bench-ingest, Tools/bench-fleet-latency):
build release, start `missiontrack serve` on a free loopback port, register workers with an
OsmAnd and an Overland device each, accept and start one mission per worker."""

import concurrent.futures
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_BIN = os.path.join(ROOT, ".build/release/missiontrack")
METERS_PER_DEGREE = 6371008.8 * 3.141592653589793 / 180


def build():
    subprocess.run(
        ["swift", "build", "-c", "release", "--package-path", ROOT, "--product", "missiontrack"],
        check=True, stdout=sys.stderr)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(port, method, path, body=None, headers=None):
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", method=method,
        data=None if body is None else body.encode(), headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def run(arguments, **kwargs):
    return subprocess.run(arguments, check=True, capture_output=True, text=True, **kwargs)


class Service:
    """A `missiontrack serve` on a free loopback port (more flags in `extra`), its stderr in
    DIR/serve.err; stopped with SIGTERM when the `with` block ends."""

    def __init__(self, binary, db, directory, extra=()):
        self.port = free_port()
        self.log = open(os.path.join(directory, "serve.err"), "w")
        self.process = subprocess.Popen(
            [binary, "serve", "--db", db, "--listen", f"127.0.0.1:{self.port}", *extra],
            stderr=self.log)

    def __enter__(self):
        for _ in range(600):
            try:
                if http(self.port, "GET", "/healthz")[0] == 200:
                    return self
            except OSError:
                time.sleep(0.05)
        raise SystemExit(f"serve did not answer /healthz on port {self.port}")

    def __exit__(self, *exc):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=60)
        self.log.close()


def in_parallel(function, items, threads=4):
    """Calls `function` on every item from a few threads (set-up requests are independent)."""
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        for _ in pool.map(function, items):
            pass


def register(binary, directory, port, db, n, program):
    """Workers w0… with devices osmand:devD and overland:devD, secret sD."""
    def devices(d):
        return [{"protocol": p, "device_id": f"dev{d}", "secret": f"s{d}"}
                for p in ("osmand", "overland")]

    def put(d):
        status, text = http(port, "PUT", f"/v1/workers/w{d}",
                            json.dumps({"devices": devices(d)}),
                            {"Content-Type": "application/json"})
        if status not in (200, 201):
            raise SystemExit(f"{program}: PUT /v1/workers/w{d}: {status} {text}")

    status, _ = http(port, "PUT", "/v1/workers/w0", json.dumps({"devices": devices(0)}),
                     {"Content-Type": "application/json"})
    if status in (200, 201):
        in_parallel(put, range(1, n))
        return
    # No such route in this build: the CLI, which writes the same database.
    for d in range(n):
        secret = os.path.join(directory, f"secret{d}")
        with open(secret, "w") as out:
            out.write(f"s{d}\n")
        run([binary, "workers", "add", f"w{d}", "--device", f"osmand:dev{d}",
             "--secret-file", secret, "--device", f"overland:dev{d}", "--secret-file", secret,
             "--db", db])


def track(port, missions, program):
    """Accepts `missions[d]` for worker wD and starts it."""
    def accept_and_start(d):
        mission = missions[d]
        status, text = http(
            port, "POST", f"/v1/missions/{mission}/accept", json.dumps({"worker_id": f"w{d}"}),
            {"Content-Type": "application/json"})
        if status != 200:
            raise SystemExit(f"{program}: accept {mission}: {status} {text}")
        status, text = http(port, "POST", f"/v1/missions/{mission}/start")
        if status != 200:
            raise SystemExit(f"{program}: start {mission}: {status} {text}")

    in_parallel(accept_and_start, range(len(missions)))
