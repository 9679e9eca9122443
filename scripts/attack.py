#!/usr/bin/env python3
"""Re-runs the connection and metrics attacks of issue 9 against a running
server on loopback, and measures what a normal client gets meanwhile.

usage: scripts/attack.py SCENARIO [options] PORT
  methods      N requests with random L-character methods and random paths
               (--count 20000 --length 1000); prints /metrics size and scrape
               time before and after.
  slow-bodies  N connections send a POST /users head (Content-Length 1 MB)
               and then 1 byte every --interval seconds (default 10000, 5 s);
               closed ones reconnect after --reconnect seconds.
  idle         N connections that send nothing (default 12000); closed ones
               reconnect after --reconnect seconds.
  half-bodies  N connections each send a POST /users head with Content-Length
               --size and then --sent bytes of it, and hold (default 1000,
               1 MiB, 1,000,000); prints the server's RSS (--pid) as it goes.

The attackers connect from --sources loopback addresses (127.0.1.1,
127.0.1.2, ...; default 1); the normal client from 127.0.0.1 sends
GET /health on a new connection every --every seconds (default 0.16)
during --duration seconds (default 40), and the script prints its success
rate and latency percentiles. Run with a high `ulimit -n` (the script
raises its soft limit to the hard one). Standard library only.
"""
import argparse
import multiprocessing
import random
import resource
import selectors
import socket
import string
import sys
import threading
import time

HOST = "127.0.0.1"


def raise_fd_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def read_response(sock):
    """Reads one HTTP/1.1 response with a Content-Length body; returns (status, body)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed before the head")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    while len(rest) < length:
        chunk = sock.recv(max(65536, length - len(rest)))
        if not chunk:
            raise ConnectionError("closed inside the body")
        rest += chunk
    return status, rest[:length]


def get(port, path, timeout=30.0):
    started = time.monotonic()
    with socket.create_connection((HOST, port), timeout=timeout) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n".encode())
        status, body = read_response(sock)
    return status, body, time.monotonic() - started


class NormalClient:
    """A well-behaved client: one GET /health per new connection. Runs in a
    process of its own, so the attackers' Python does not hold it up (with
    both in one process, the GIL alone added hundreds of milliseconds)."""

    def __init__(self, port, every, duration):
        self.port, self.every, self.duration = port, every, duration
        self.results = []  # (ok, seconds, what)
        self.queue = multiprocessing.Queue()
        self.process = multiprocessing.Process(target=self.run, daemon=True)

    def start(self):
        self.process.start()

    def join(self):
        self.results = self.queue.get()
        self.process.join()

    def run(self):
        results = []
        end = time.monotonic() + self.duration
        while time.monotonic() < end:
            started = time.monotonic()
            try:
                status, _, elapsed = get(self.port, "/health", timeout=5.0)
                results.append((status == 200, elapsed, str(status)))
            except Exception as error:  # refused, reset, timed out: not served
                results.append((False, time.monotonic() - started, type(error).__name__))
            time.sleep(max(0.0, self.every - (time.monotonic() - started)))
        self.queue.put(results)

    def report(self, label):
        total = len(self.results)
        served = [seconds for ok, seconds, _ in self.results if ok]
        failures = {}
        for ok, _, what in self.results:
            if not ok:
                failures[what] = failures.get(what, 0) + 1
        latencies = sorted(served) or [0.0]

        def percentile(p):
            return latencies[min(len(latencies) - 1, int(p / 100 * len(latencies)))] * 1000

        print(f"{label}: normal client {len(served)}/{total} served ({100 * len(served) / max(1, total):.1f}%),"
              f" p50 {percentile(50):.1f} ms, p99 {percentile(99):.1f} ms, max {latencies[-1] * 1000:.1f} ms,"
              f" failures {failures or 'none'}")


def source_addresses(count):
    return [f"127.0.1.{i}" for i in range(1, count + 1)]


class Swarm:
    """Many non-blocking attacker connections in one selector loop."""

    def __init__(self, port, count, sources, opening, trickle=None, interval=5.0, reconnect=1.0):
        self.port, self.count, self.sources = port, count, sources
        self.opening, self.trickle, self.interval, self.reconnect = opening, trickle, interval, reconnect
        self.selector = selectors.DefaultSelector()
        self.open = {}  # socket -> [when to send next, whether the opening bytes went out]
        self.pending_reconnects = []  # times
        self.stats = {"opened": 0, "closed_by_server": 0, "connect_failed": 0}
        self.stop = False

    def connect_one(self, index):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.bind((self.sources[index % len(self.sources)], 0))
            sock.setblocking(False)
            sock.connect_ex((HOST, self.port))
            self.selector.register(sock, selectors.EVENT_READ)
            # The connect completes in the background; the first bytes go out shortly.
            self.open[sock] = [time.monotonic() + 0.1, False]
            self.stats["opened"] += 1
        except OSError:
            sock.close()
            self.stats["connect_failed"] += 1
            self.pending_reconnects.append(time.monotonic() + self.reconnect)

    def send_due(self, now):
        for sock, state in self.open.items():
            if now < state[0]:
                continue
            payload = self.trickle if state[1] else self.opening
            try:
                if payload:
                    sock.send(payload)
                state[1] = True
                state[0] = now + self.interval
            except (BlockingIOError, InterruptedError, OSError):
                state[0] = now + 0.1  # not connected yet, or full: try again soon

    def drop(self, sock):
        self.selector.unregister(sock)
        del self.open[sock]
        sock.close()
        self.stats["closed_by_server"] += 1
        if self.reconnect is not None:
            self.pending_reconnects.append(time.monotonic() + self.reconnect)

    def run(self, duration, on_tick=None):
        for index in range(self.count):
            self.connect_one(index)
            if index % 500 == 499:
                self.poll(0)
        end = time.monotonic() + duration
        next_tick = time.monotonic()
        while time.monotonic() < end and not self.stop:
            self.poll(0.1)
            now = time.monotonic()
            self.send_due(now)
            ready = [t for t in self.pending_reconnects if t <= now]
            self.pending_reconnects = [t for t in self.pending_reconnects if t > now]
            for index, _ in enumerate(ready):
                self.connect_one(index)
            if on_tick and now >= next_tick:
                on_tick(self)
                next_tick = now + 2.0

    def poll(self, timeout):
        for key, _ in self.selector.select(timeout):
            sock = key.fileobj
            try:
                data = sock.recv(65536)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                data = b""
            if not data:
                self.drop(sock)

    def close_all(self):
        for sock in list(self.open):
            self.selector.unregister(sock)
            sock.close()
        self.open.clear()


def rss_mb(pid):
    if not pid:
        return float("nan")
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def metric(port, name):
    _, body, _ = get(port, "/metrics")
    for line in body.decode().splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{}"):
            return float(line.rsplit(" ", 1)[1])
    return None


def scenario_methods(args):
    status, body, seconds = get(args.port, "/metrics")
    print(f"before: /metrics {status}, {len(body)} bytes, scrape {seconds * 1000:.1f} ms")
    letters = string.ascii_letters
    per_thread = args.count // args.connections

    def flood():
        sock = socket.create_connection((HOST, args.port))
        for _ in range(per_thread):
            method = "".join(random.choices(letters, k=args.length))
            path = "/" + "".join(random.choices(letters, k=16))
            try:
                sock.sendall(f"{method} {path} HTTP/1.1\r\nHost: t\r\n\r\n".encode())
                read_response(sock)
            except OSError:
                sock.close()
                sock = socket.create_connection((HOST, args.port))
        sock.close()

    started = time.monotonic()
    threads = [threading.Thread(target=flood) for _ in range(args.connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(f"sent {per_thread * args.connections} requests with {args.length}-character methods"
          f" in {time.monotonic() - started:.1f} s")
    status, body, seconds = get(args.port, "/metrics")
    print(f"after:  /metrics {status}, {len(body)} bytes, scrape {seconds * 1000:.1f} ms,"
          f" server RSS {rss_mb(args.pid):.0f} MB")


def run_swarm(args, label, opening, trickle):
    client = NormalClient(args.port, args.every, args.duration)
    swarm = Swarm(args.port, args.count, source_addresses(args.sources), opening, trickle, args.interval,
                  args.reconnect)

    def tick(s):
        print(f"  t: {len(s.open)} attacker connections open, {s.stats}, server RSS {rss_mb(args.pid):.0f} MB",
              flush=True)

    attacker = threading.Thread(target=swarm.run, args=(args.duration + 5, tick), daemon=True)
    attacker.start()
    time.sleep(3)  # let the swarm open its connections first
    client.start()
    client.join()
    swarm.stop = True
    attacker.join()
    client.report(label)
    swarm.close_all()


def scenario_slow_bodies(args):
    head = b"POST /users HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 1048576\r\n\r\n{"
    run_swarm(args, f"{args.count} slow bodies from {args.sources} address(es)", head, b" ")


def scenario_idle(args):
    run_swarm(args, f"{args.count} idle connections from {args.sources} address(es)", None, None)


def scenario_half_bodies(args):
    print(f"server RSS before: {rss_mb(args.pid):.0f} MB")
    sources = source_addresses(args.sources)
    head = (f"POST /users HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
            f"Content-Length: {args.size}\r\n\r\n").encode()
    payload = b"{" + b" " * (args.sent - 1)
    sockets, refused, sent_all = [], 0, 0
    peak = 0.0
    for index in range(args.count):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind((sources[index % len(sources)], 0))
        sock.settimeout(10)
        try:
            sock.connect((HOST, args.port))
            sock.sendall(head)
            sock.settimeout(0.5)
            sock.sendall(payload)
            sent_all += 1
            sockets.append(sock)
        except OSError:
            refused += 1
            sock.close()
        if index % 100 == 99:
            peak = max(peak, rss_mb(args.pid))
            print(f"  {index + 1} opened, {sent_all} sent whole, {refused} refused or reset,"
                  f" server RSS {rss_mb(args.pid):.0f} MB", flush=True)
    for _ in range(int(args.hold)):
        time.sleep(1)
        peak = max(peak, rss_mb(args.pid))
    buffered = open_connections = refused = None
    try:
        buffered = metric(args.port, "axiom_http_buffered_body_bytes")
        open_connections = metric(args.port, "axiom_http_open_connections")
        refused = metric(args.port, "axiom_http_bodies_refused_total")
    except Exception:
        pass
    print(f"held {len(sockets)} client sockets for {args.hold:.0f} s; server RSS {rss_mb(args.pid):.0f} MB"
          f" (peak seen {peak:.0f} MB); server: {open_connections} open connections,"
          f" {buffered} buffered body bytes, {refused} bodies refused")
    for sock in sockets:
        sock.close()
    time.sleep(2)
    print(f"after closing: server RSS {rss_mb(args.pid):.0f} MB, buffered body bytes "
          f"{metric(args.port, 'axiom_http_buffered_body_bytes')}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenario", choices=["methods", "slow-bodies", "idle", "half-bodies"])
    parser.add_argument("port", type=int)
    parser.add_argument("--pid", type=int, default=0, help="server pid, for its RSS")
    parser.add_argument("--count", type=int)
    parser.add_argument("--length", type=int, default=1000)
    parser.add_argument("--connections", type=int, default=8, help="methods: parallel connections")
    parser.add_argument("--sources", type=int, default=1)
    parser.add_argument("--duration", type=float, default=40)
    parser.add_argument("--every", type=float, default=0.16)
    parser.add_argument("--interval", type=float, default=5.0)
    parser.add_argument("--reconnect", type=float, default=1.0)
    parser.add_argument("--size", type=int, default=1048576)
    parser.add_argument("--sent", type=int, default=1_000_000)
    parser.add_argument("--hold", type=float, default=5, help="half-bodies: seconds to hold before closing")
    args = parser.parse_args()
    print(f"fd limit {raise_fd_limit()}")
    defaults = {"methods": 20000, "slow-bodies": 10000, "idle": 12000, "half-bodies": 1000}
    args.count = args.count or defaults[args.scenario]
    {"methods": scenario_methods, "slow-bodies": scenario_slow_bodies, "idle": scenario_idle,
     "half-bodies": scenario_half_bodies}[args.scenario](args)


if __name__ == "__main__":
    sys.exit(main())
