"""A Standard Webhooks receiver for the tests, the cluster test and a local
try-out: HTTPS (or plain HTTP with --tls none) on 127.0.0.1, keep-alive,
serving many endpoints by path, POST /hooks/<name>.

Makes a trustme CA (its PEM at DIR/ca.pem) and a certificate for
--cert-host and 127.0.0.1. Each delivery is verified with the reference
library (`standardwebhooks.Webhook(secret).verify(body, headers)`, which
also holds the timestamp to its tolerance) against the endpoint's secrets;
one that fails is answered 400. Every request to /hooks/ is recorded as one
JSON line in DIR/deliveries.jsonl (what it was, whether it verified, what
it was answered), written before the answer goes out.

An endpoint has secrets and a behaviour, set by the test through
`PUT /_control/endpoints/<name>` ({"secrets": [...], "behaviour": ...}) or
in DIR/endpoints.json ({"<name>": {"secrets": ..., "behaviour": ...}}),
which is read again whenever it changed (write it whole and rename it into
place). A behaviour is a name or an object with "kind" and its options:

  ok                      204
  gone                    410 (the sender disables the endpoint)
  fail                    500, always
  slow     seconds=1      sleeps, then 204
  random   seed=0 share=0.3 stall=3 max_failures=3
                          a `share` of deliveries fail, in turn by chance:
                          500, no answer for `stall` seconds (past the
                          sender's timeout) then the connection closed, a
                          connection reset (RST), or 429 with Retry-After: 1;
                          one webhook-id fails at most `max_failures` times
                          in a row, then 204, so a bounded retry schedule
                          always gets through.

Prints {"port": …, "ca": …} on its first line once listening and writes the
port to DIR/port; exits on SIGTERM, when its parent dies, when stdin (a
pipe) closes, or after --lifetime seconds.
"""
import argparse
import asyncio
import json
import os
import random
import signal
import socket
import ssl
import stat
import struct
import sys
import time

import trustme
from standardwebhooks import Webhook

MAX_HEAD = 64 * 1024
MAX_BODY = 8 * 1024 * 1024
FAILURES = ("500", "timeout", "reset", "429")
REASONS = {200: "OK", 204: "No Content", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
           410: "Gone", 413: "Content Too Large", 429: "Too Many Requests", 500: "Internal Server Error"}


class BadRequest(Exception):
    pass


class Behaviour:
    """What an endpoint answers a verified delivery; `random` keeps its
    generator and its per-id failure counts while the endpoint lives."""

    KINDS = ("ok", "gone", "fail", "slow", "random")

    def __init__(self, spec):
        spec = {"kind": spec} if isinstance(spec, str) else dict(spec or {"kind": "ok"})
        if spec.get("kind") not in self.KINDS:
            raise ValueError(f"behaviour kind must be one of {', '.join(self.KINDS)}: {spec.get('kind')!r}")
        self.spec = spec
        self.kind = spec["kind"]
        self.seconds = float(spec.get("seconds", 1.0))
        self.share = float(spec.get("share", 0.3))
        self.stall = float(spec.get("stall", 3.0))
        self.max_failures = int(spec.get("max_failures", 3))
        self.rng = random.Random(spec.get("seed", 0))
        self.failed_in_a_row = {}

    def answer(self, webhook_id):
        """"204", "410", "500", "429", "timeout", "reset" or "slow"."""
        if self.kind == "ok":
            return "204"
        if self.kind == "gone":
            return "410"
        if self.kind == "fail":
            return "500"
        if self.kind == "slow":
            return "slow"
        failed = self.failed_in_a_row.get(webhook_id, 0)
        if failed < self.max_failures and self.rng.random() < self.share:
            self.failed_in_a_row[webhook_id] = failed + 1
            return self.rng.choice(FAILURES)
        self.failed_in_a_row.pop(webhook_id, None)
        return "204"


class Endpoint:
    def __init__(self, secrets, behaviour):
        if not isinstance(secrets, list) or not all(isinstance(s, str) for s in secrets):
            raise ValueError("secrets must be a list of strings")
        self.secrets = secrets
        self.verifiers = [Webhook(secret) for secret in secrets]
        self.behaviour = behaviour

    def verify(self, body, headers):
        """(verified, for each signature the index of the secret it is
        made with or None, the library's last complaint)."""
        error = None if self.verifiers else "no secret registered for this endpoint"
        verified = False
        for verifier in self.verifiers:
            try:
                verifier.verify(body, headers, json_parse=False)
                verified = True
                break
            except Exception as failure:  # the library raises more than its own error on malformed headers
                error = f"{type(failure).__name__}: {failure}"
        matched = []
        signatures = headers.get("webhook-signature", "").split()
        for signature in signatures if verified else []:
            one = dict(headers, **{"webhook-signature": signature})
            which = None
            for index, verifier in enumerate(self.verifiers):
                try:
                    verifier.verify(body, one, json_parse=False)
                    which = index
                    break
                except Exception:
                    continue
            matched.append(which)
        return verified, matched, None if verified else error


class Endpoints:
    """The endpoints by name, from the control API and the endpoints file."""

    def __init__(self, path):
        self.path = path
        self.by_name = {}
        self.file_mark = None

    def put(self, name, config):
        old = self.by_name.get(name)
        spec = config.get("behaviour", "ok")
        behaviour = Behaviour(spec)
        # The same behaviour again (the file re-read, secrets rotated) keeps its state.
        if old is not None and old.behaviour.spec == behaviour.spec:
            behaviour = old.behaviour
        self.by_name[name] = Endpoint(config.get("secrets", []), behaviour)

    def get(self, name):
        self.reload()
        return self.by_name.get(name)

    def reload(self):
        try:
            info = os.stat(self.path)
        except FileNotFoundError:
            return
        mark = (info.st_ino, info.st_mtime_ns, info.st_size)
        if mark == self.file_mark:
            return
        try:
            with open(self.path) as source:
                configs = json.load(source)
            for name, config in configs.items():
                self.put(name, config)
            self.file_mark = mark
        except (OSError, ValueError) as failure:
            print(f"webhook_receiver: {self.path}: {failure}", file=sys.stderr, flush=True)


class Recorder:
    """DIR/deliveries.jsonl: one line per request, each one write(2) on an
    O_APPEND descriptor, so a reader never sees two lines interleaved."""

    def __init__(self, path):
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self.attempts = {}

    def attempt(self, endpoint, webhook_id):
        key = (endpoint, webhook_id)
        self.attempts[key] = self.attempts.get(key, 0) + 1
        return self.attempts[key]

    def write(self, record):
        os.write(self.fd, (json.dumps(record, separators=(",", ":")) + "\n").encode())


class Request:
    def __init__(self, method, target, version, headers, body):
        self.method, self.target, self.version, self.headers, self.body = method, target, version, headers, body

    @property
    def keep_alive(self):
        connection = self.headers.get("connection", "").lower()
        return connection != "close" if self.version == "HTTP/1.1" else connection == "keep-alive"


async def read_request(reader, writer):
    """The next request on the connection, None when the peer closed it."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as partial:
        if partial.partial.strip():
            raise BadRequest("connection closed inside a request head")
        return None
    except asyncio.LimitOverrunError:
        raise BadRequest("request head too large")
    lines = head[:-4].decode("latin-1").split("\r\n")
    try:
        method, target, version = lines[0].split(" ")
    except ValueError:
        raise BadRequest(f"bad request line {lines[0]!r}")
    headers = {}
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon or not name or name != name.strip():
            raise BadRequest(f"bad header line {line!r}")
        name = name.lower()
        headers[name] = f"{headers[name]}, {value.strip()}" if name in headers else value.strip()
    if headers.get("expect", "").lower() == "100-continue":
        writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = bytearray()
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0].strip(), 16)
            if size == 0:
                while (await reader.readuntil(b"\r\n")) != b"\r\n":
                    pass
                break
            if len(body) + size > MAX_BODY:
                raise BadRequest("body too large")
            body += await reader.readexactly(size)
            await reader.readexactly(2)
        body = bytes(body)
    else:
        length = int(headers.get("content-length", "0"))
        if length > MAX_BODY:
            raise BadRequest("body too large")
        body = await reader.readexactly(length) if length else b""
    return Request(method, target, version, headers, body)


def response(status, keep_alive, body=b"", extra=()):
    lines = [f"HTTP/1.1 {status} {REASONS.get(status, 'Status')}", f"Content-Length: {len(body)}",
             "Connection: " + ("keep-alive" if keep_alive else "close"), *extra]
    if body:
        lines.append("Content-Type: application/json")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def reset(writer):
    """Closes the connection with a TCP RST: SO_LINGER 0, then no close_notify."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


class Receiver:
    def __init__(self, directory, endpoints_path):
        self.endpoints = Endpoints(endpoints_path)
        self.recorder = Recorder(os.path.join(directory, "deliveries.jsonl"))
        self.connections = 0
        self.open = set()
        self.closing = asyncio.Event()

    async def serve(self, reader, writer):
        self.connections += 1
        connection = self.connections
        self.open.add(writer)
        try:
            while True:
                request = await read_request(reader, writer)
                if request is None:
                    break
                if not await self.dispatch(request, writer, connection):
                    break
        except BadRequest as failure:
            writer.write(response(400, False, json.dumps({"error": str(failure)}).encode()))
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError, ValueError, OSError):
            pass
        finally:
            self.open.discard(writer)
            if not writer.transport.is_closing():
                writer.close()

    async def pause(self, seconds):
        """Sleeps, or less when the receiver is shutting down."""
        try:
            await asyncio.wait_for(self.closing.wait(), seconds)
        except asyncio.TimeoutError:
            pass

    async def shut(self):
        """Ends every connection, each task its own way out (none cancelled
        half-started), within a bound."""
        self.closing.set()
        for _ in range(40):
            for writer in list(self.open):
                writer.transport.abort()
            # A connection's task made but not yet started is waited for too.
            others = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
            if not others:
                return
            await asyncio.wait(others, timeout=0.05)

    async def dispatch(self, request, writer, connection):
        """Answers one request; False when the connection is to end."""
        path = request.target.split("?")[0]
        if path.startswith("/hooks/"):
            return await self.deliver(path[len("/hooks/"):], request, writer, connection)
        if path.startswith("/_control/endpoints/"):
            status, body = self.control(path[len("/_control/endpoints/"):], request)
        else:
            status, body = 404, {"error": "no such path"}
        writer.write(response(status, request.keep_alive, json.dumps(body).encode() if body is not None else b""))
        await writer.drain()
        return request.keep_alive

    def control(self, name, request):
        if request.method == "PUT":
            try:
                config = json.loads(request.body)
                self.endpoints.put(name, config)
            except (ValueError, TypeError, AttributeError) as failure:
                return 400, {"error": str(failure)}
            return 204, None
        if request.method == "GET":
            endpoint = self.endpoints.get(name)
            if endpoint is None:
                return 404, {"error": f"no endpoint {name}"}
            return 200, {"secrets": endpoint.secrets, "behaviour": endpoint.behaviour.spec}
        return 405, {"error": "PUT or GET"}

    async def deliver(self, name, request, writer, connection):
        received_at = time.time()
        endpoint = self.endpoints.get(name)
        webhook_id = request.headers.get("webhook-id")
        record = {"received_at": received_at, "endpoint": name, "webhook_id": webhook_id,
                  "webhook_timestamp": request.headers.get("webhook-timestamp"),
                  "signatures": len(request.headers.get("webhook-signature", "").split()),
                  "connection": connection, "attempt": self.recorder.attempt(name, webhook_id)}
        try:
            payload = json.loads(request.body)
            data = payload.get("data") or {}
            record.update(type=payload.get("type"), event_timestamp=payload.get("timestamp"),
                          data_id=data.get("id"), version=data.get("version"))
        except (ValueError, AttributeError):
            record.update(type=None, event_timestamp=None, data_id=None, version=None)
        if request.method != "POST" or endpoint is None:
            answer = "405" if endpoint is not None else "404"
            record.update(verified=False, matched=[], error="not a POST" if endpoint else "no such endpoint")
        else:
            verified, matched, error = endpoint.verify(request.body, request.headers)
            record.update(verified=verified, matched=matched, error=error)
            answer = endpoint.behaviour.answer(webhook_id) if verified else "400"
        record["answer"] = answer
        self.recorder.write(record)
        if answer == "reset":
            reset(writer)
            return False
        if answer == "timeout":
            await self.pause(endpoint.behaviour.stall)
            return False
        if answer == "slow":
            await self.pause(endpoint.behaviour.seconds)
            answer = "204"
        extra = ("Retry-After: 1",) if answer == "429" else ()
        body = json.dumps({"error": record["error"]}).encode() if answer == "400" else b""
        writer.write(response(int(answer), request.keep_alive, body, extra))
        await writer.drain()
        return request.keep_alive


def tls_context(directory, cert_host):
    ca = trustme.CA()
    ca.cert_pem.write_to_path(os.path.join(directory, "ca.pem"))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert(cert_host, "127.0.0.1").configure_cert(context)
    return context


async def watch_parent(parent, stdin_is_pipe, stop):
    """Ends the server when the process that started it is gone."""
    if stdin_is_pipe:
        loop = asyncio.get_running_loop()
        loop.add_reader(sys.stdin.fileno(), lambda: (os.read(sys.stdin.fileno(), 4096) or stop.set()))
    while not stop.is_set():
        if os.getppid() != parent:
            stop.set()
        await asyncio.sleep(0.5)


async def run(args):
    context = None if args.tls == "none" else tls_context(args.dir, args.cert_host)
    receiver = Receiver(args.dir, args.endpoints or os.path.join(args.dir, "endpoints.json"))
    server = await asyncio.start_server(receiver.serve, "127.0.0.1", args.port, ssl=context, backlog=1024,
                                        limit=MAX_HEAD, reuse_address=True)
    port = server.sockets[0].getsockname()[1]
    with open(os.path.join(args.dir, "port.tmp"), "w") as out:
        out.write(f"{port}\n")
    os.replace(os.path.join(args.dir, "port.tmp"), os.path.join(args.dir, "port"))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    print(json.dumps({"port": port, "ca": os.path.join(args.dir, "ca.pem") if context else None}), flush=True)
    loop.call_later(args.lifetime, stop.set)
    stdin_is_pipe = stat.S_ISFIFO(os.fstat(sys.stdin.fileno()).st_mode)
    watcher = asyncio.ensure_future(watch_parent(os.getppid(), stdin_is_pipe, stop))
    await stop.wait()
    watcher.cancel()
    server.close()
    await receiver.shut()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", required=True, help="where ca.pem, port and deliveries.jsonl go")
    parser.add_argument("--tls", choices=["trustme", "none"], default="trustme")
    parser.add_argument("--cert-host", default="localhost")
    parser.add_argument("--endpoints", help="the endpoints file (default DIR/endpoints.json)")
    parser.add_argument("--port", type=int, default=0, help="listen here (0: a free port)")
    parser.add_argument("--lifetime", type=float, default=600)
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
