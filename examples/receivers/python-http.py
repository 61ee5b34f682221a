"""A Tablepay webhook receiver in Python's standard library that passes `tablepay receiver check`.

    TABLEPAY_WEBHOOK_SECRET=whsec_… PORT=3000 python3 examples/receivers/python-http.py
    tablepay receiver check --forward-to http://127.0.0.1:3000/webhooks

The same three rules as node-http.mjs: verify the raw body before parsing it,
answer 2xx to a duplicate (deduplicate on the event id), answer 2xx to an
older state and keep the newer one.
"""

import hashlib
import hmac
import time

import json
import os
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

TOLERANCE_SECONDS = 300


def verify(body: bytes, header: str | None, secret: str) -> str | None:
    """None when `header` signs `body` with `secret` within the tolerance; else why not."""
    if not header:
        return "no_signature"
    fields = [field.strip().partition("=") for field in header.split(",")]
    timestamps = [value for key, _, value in fields if key == "t"]
    signatures = [value.encode() for key, _, value in fields if key == "v1"]
    if len(timestamps) != 1 or not timestamps[0].isdecimal():
        return "malformed_header"
    if not signatures:
        return "no_signature"
    signed = timestamps[0].encode() + b"." + body
    expected = hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest().encode()
    if not any(hmac.compare_digest(expected, signature) for signature in signatures):
        return "signature_mismatch"
    if abs(time.time() - int(timestamps[0])) > TOLERANCE_SECONDS:
        return "timestamp_outside_tolerance"
    return None


class Inbox:
    """The event ids handled and the newest state of each resource. In production, keep both in your database."""

    def __init__(self):
        self.seen = set()
        self.latest = {}

    def receive(self, event: dict) -> bool:
        """Takes an event in; False when its id was handled before."""
        if event["id"] in self.seen:
            return False
        self.seen.add(event["id"])
        resource = event.get("data") or {}
        if "id" in resource and self.is_newer(resource):
            self.latest[resource["id"]] = resource
        return True

    def is_newer(self, resource: dict) -> bool:
        """Newer by updated_at, then by version: a claim or a payment changes a check without a new POS version."""
        current = self.latest.get(resource["id"])
        if current is None:
            return True
        if resource.get("updated_at") != current.get("updated_at"):
            return resource.get("updated_at", "") > current.get("updated_at", "")
        return resource.get("version", 0) > current.get("version", 0)


def receiver(secret: str, inbox: Inbox):
    """The request handler: any path, POST only."""

    class Receiver(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            reason = verify(body, self.headers.get("X-Tablepay-Signature"), secret)
            if reason:
                return self.answer(400, reason)
            try:
                event = json.loads(body)
            except ValueError:
                return self.answer(400, "invalid_json")
            # Answer at once (within 10 s), then do slow work elsewhere: a late answer is a failed delivery.
            self.answer(200, "ok" if inbox.receive(event) else "duplicate")

        def refuse(self):
            self.send_response(405)
            self.send_header("Allow", "POST")
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_GET = do_HEAD = do_PUT = do_PATCH = do_DELETE = refuse

        def answer(self, status: int, text: str):
            self.send_response(status)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(text)))
            self.end_headers()
            self.wfile.write(text.encode())

    return Receiver


if __name__ == "__main__":
    secret = os.environ.get("TABLEPAY_WEBHOOK_SECRET")
    if not secret:
        sys.exit("Set TABLEPAY_WEBHOOK_SECRET to the endpoint's whsec_… secret.")
    # One request at a time, as node-http.mjs: the inbox needs no lock.
    server = HTTPServer(("127.0.0.1", int(os.environ.get("PORT", 3000))), receiver(secret, Inbox()))
    print(f"listening on http://127.0.0.1:{server.server_port}/webhooks", flush=True)
    server.serve_forever()
