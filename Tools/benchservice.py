"""Set-up shared by the service benchmarks (Tools/bench-ingest, Tools/bench-fleet-latency)
and Tools/fleet-demo: build release, start `missiontrack serve` on a free loopback port,
register workers with an OsmAnd and an Overland device each, accept and start one mission
per worker, and start a private PostgreSQL cluster."""

import concurrent.futures
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

PG = "/usr/lib/postgresql/15/bin"
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


def as_postgres(arguments):
    """`arguments` run as the postgres user when we are root (initdb refuses root)."""
    return (["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []) + arguments


def start_cluster(work, database):
    """A private PostgreSQL cluster in WORK/data on a free loopback port, its socket in
    WORK/socket (never the system cluster), default durability, with DATABASE created;
    returns the database's URI. Stop it with `stop_cluster(work)`."""
    port = free_port()
    os.makedirs(f"{work}/socket")
    if os.getuid() == 0:
        shutil.chown(work, "postgres", "postgres")
        shutil.chown(f"{work}/socket", "postgres", "postgres")
    run(as_postgres([f"{PG}/initdb", "-D", f"{work}/data", "-A", "trust", "-U", "postgres",
                     "-E", "UTF8", "--locale=C"]))
    run(as_postgres([
        f"{PG}/pg_ctl", "-D", f"{work}/data", "-l", f"{work}/server.log", "-w", "-o",
        f"-p {port} -k {work}/socket -c listen_addresses=127.0.0.1", "start"]))
    run([f"{PG}/psql", "-X", "-q", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres",
         "-d", "postgres", "-c", f"CREATE DATABASE {database}"])
    return f"postgresql://postgres@127.0.0.1:{port}/{database}"


def stop_cluster(work):
    """Stops the cluster `start_cluster(work, …)` started (its files stay in WORK)."""
    subprocess.run(as_postgres([f"{PG}/pg_ctl", "-D", f"{work}/data", "-m", "fast", "-w",
                                "stop"]), capture_output=True)
