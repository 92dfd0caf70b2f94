#!/usr/bin/env python3
"""A webhook receiver for MissionTrack's delivery tests and benchmarks (asyncio, HTTP/1.1
keep-alive, no dependencies).

Usage: webhook_receiver.py LOG_FILE [SECRET|-] [CERT_FILE KEY_FILE]
Prints "port N" on stdout once it listens on 127.0.0.1 (a free port). What it answers
depends on the request path:
  /ok            200
  /fail          500
  /busy          503 with Retry-After: 7
  /busy-date     503 with Retry-After as an HTTP date 9 s ahead
  /gone          410
  /hang          nothing for 30 s, then 200
  /status/NNN    NNN
Every request is logged as one JSON line to LOG_FILE: path, the webhook-* headers, the
body, the client's port (one per connection, so keep-alive shows), and (with SECRET)
whether the Standard Webhooks signature is valid. With CERT_FILE and KEY_FILE it speaks
HTTPS. With RECEIVER_PROCESSES=N in the environment, N processes serve the one listening
socket (for benchmarks: one Python process answers only a few thousand requests a second).
"""
import asyncio
import base64
import email.utils
import hashlib
import hmac
import ctypes
import json
import os
import signal
import socket
import ssl
import sys
import time

log_path = sys.argv[1]
secret = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] != "-" else None
tls = None
if len(sys.argv) > 4:
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(sys.argv[3], sys.argv[4])
log = open(log_path, "a", buffering=1)


def signature_valid(headers, body):
    """The Standard Webhooks rule: v1,base64(HMAC-SHA256(key, id.timestamp.body))."""
    key = base64.b64decode(secret.removeprefix("whsec_"))
    content = f"{headers.get('webhook-id')}.{headers.get('webhook-timestamp')}.".encode() + body
    expected = base64.b64encode(hmac.new(key, content, hashlib.sha256).digest()).decode()
    given = [part.split(",", 1)[1] for part in headers.get("webhook-signature", "").split(" ")
             if part.startswith("v1,")]
    return any(hmac.compare_digest(expected, value) for value in given)


def answer(path):
    if path == "/ok":
        return 200, {}
    if path == "/fail":
        return 500, {}
    if path == "/busy":
        return 503, {"Retry-After": "7"}
    if path == "/busy-date":
        return 503, {"Retry-After": email.utils.formatdate(time.time() + 9, usegmt=True)}
    if path == "/gone":
        return 410, {}
    if path.startswith("/status/"):
        return int(path.removeprefix("/status/")), {}
    return 404, {}


async def serve(reader, writer):
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, path, _ = lines[0].split(" ", 2)
            headers = {}
            for line in lines[1:]:
                if ":" in line:
                    name, value = line.split(":", 1)
                    headers[name.strip().lower()] = value.strip()
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            entry = {"method": method, "path": path, "body": body.decode("utf-8", "replace"),
                     "time": time.time(), "peer": writer.get_extra_info("peername")[1]}
            for name in ("webhook-id", "webhook-timestamp", "webhook-signature",
                         "content-type"):
                entry[name] = headers.get(name)
            if secret:
                entry["valid"] = signature_valid(headers, body)
            log.write(json.dumps(entry) + "\n")
            if path == "/hang":
                await asyncio.sleep(30)
            status, extra = answer(path)
            reply = f"HTTP/1.1 {status} X\r\nContent-Length: 2\r\n"
            for name, value in extra.items():
                reply += f"{name}: {value}\r\n"
            writer.write((reply + "\r\nok").encode())
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


async def main(listener):
    server = await asyncio.start_server(serve, sock=listener, ssl=tls)
    async with server:
        await server.serve_forever()


listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
listener.bind(("127.0.0.1", 0))
listener.listen(1024)
print("port", listener.getsockname()[1], flush=True)
for _ in range(int(os.environ.get("RECEIVER_PROCESSES", "1")) - 1):
    if os.fork() == 0:
        # A helper process ends with the first one (PR_SET_PDEATHSIG).
        ctypes.CDLL(None).prctl(1, signal.SIGTERM)
        break
asyncio.run(main(listener))
