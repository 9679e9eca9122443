#!/usr/bin/env python3
"""Webhook delivery's throughput and latency on one server
(scripts/bench-webhooks.sh runs it with the server and the receiver up).

Subscribes ENDPOINTS endpoints of the receiver to one event type, then
makes events through the API, each thread on its own keep-alive connection
(products: an admin's PATCH of a product's price, a product.updated;
checkouts: a cart write and a POST /checkout, an order.created):

- throughput: EVENTS events as fast as the API takes them; once every
  delivery arrived, deliveries/s over the window from the first delivery
  to the last;
- latency: RATE events a second for DURATION seconds, paced; for each
  event and endpoint, its commit to its first attempt's arrival: p50, p90,
  p99 and the worst.

The commit time is the event's own: the body's `timestamp` (the Python
receiver records it) or, from nginx's log, which cannot hold the body, the
millisecond time in its webhook-id (a version-7 UUID made from the same
instant). The arrival is the receiver's clock; the same machine's clock on
both sides. Python 3 standard library only.
"""
import argparse
import datetime
import os
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from axiom_client import CheckFailed, Client  # noqa: E402
import webhook_check  # noqa: E402

PASSWORD = "webhook bench password"
MADE = {"products": "product.updated", "checkouts": "order.created"}


def id_time(webhook_id):
    """The milliseconds of a version-7 UUID after "msg_", in seconds."""
    return int(webhook_id[len("msg_"):][:12], 16) / 1000


def iso_seconds(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


class NginxLog:
    """nginx's access log in the `hooks` format: $msec $uri $http_webhook_id $status."""

    def __init__(self, path):
        self.path = path

    def arrivals(self):
        """(arrived, endpoint, webhook-id, made, answered 2xx) per request."""
        found = []
        with open(self.path) as source:
            for line in source:
                parts = line.split()
                if len(parts) != 4 or not parts[1].startswith("/hooks/") or not parts[2].startswith("msg_"):
                    continue
                found.append((float(parts[0]), parts[1][len("/hooks/"):], parts[2], id_time(parts[2]),
                              parts[3].startswith("2")))
        return found


class ReceiverLog:
    """scripts/webhook_receiver.py's deliveries.jsonl."""

    def __init__(self, directory):
        self.log = webhook_check.WebhookLog(directory)

    def arrivals(self):
        return [(d["received_at"], d["endpoint"], d["webhook_id"],
                 iso_seconds(d["event_timestamp"]) if isinstance(d.get("event_timestamp"), str)
                 else id_time(d["webhook_id"]), d["verified"] and d["answer"].startswith("2"))
                for d in self.log.deliveries() if d.get("webhook_id")]


class Shop:
    """The server with an admin signed in, and what each thread writes."""

    def __init__(self, port, admin_email, admin_password, threads, make):
        self.port, self.threads, self.make = port, threads, make
        client = Client(port)
        self.admin = client.must(201, "POST", "/sessions", {"email": admin_email, "password": admin_password})["token"]
        tag = str(time.time_ns())
        self.products = [client.must(201, "POST", "/products", {
            "sku": f"WH-{tag}-{i}", "name": f"Webhook bench {i}", "description": "",
            "price": {"amount": 1000, "currency": "USD"}, "stock": 1_000_000}, token=self.admin)["id"]
            for i in range(threads)]
        self.tokens = []
        if make == "checkouts":
            for index in range(threads):
                email = f"webhook-bench-{tag}-{index}@example.com"
                client.must(202, "POST", "/users", {"name": f"Bench {index}", "email": email, "password": PASSWORD})
                self.tokens.append(client.must(201, "POST", "/sessions",
                                               {"email": email, "password": PASSWORD})["token"])
        client.close()

    def subscribe(self, base_url, count, receiver_dir):
        """`count` endpoints of the receiver taking the made type; their names."""
        client = Client(self.port)
        receiver = webhook_check.WebhookReceiver(receiver_dir, started=False) if receiver_dir else None
        names, self.endpoint_ids = [], []
        for index in range(count):
            name = f"bench-{time.time_ns()}-{index}"
            created = client.must(201, "POST", "/admin/webhooks", {
                "url": f"{base_url}/{name}", "event_types": [MADE[self.make]],
                "description": "webhook benchmark"}, token=self.admin)
            if receiver:
                receiver.register(name, [created["secret"]], "ok")
            names.append(name)
            self.endpoint_ids.append(created["id"])
        if receiver:
            receiver.stop()
        client.close()
        return names

    def unsubscribe(self):
        """Deletes the endpoints `subscribe` made, so the next mode's events go to its own only."""
        client = Client(self.port)
        for endpoint in self.endpoint_ids:
            client.must((200, 204), "DELETE", f"/admin/webhooks/{endpoint}", token=self.admin)
        client.close()

    def event(self, client, index, step):
        """One event made by thread `index`."""
        if self.make == "products":
            client.must(200, "PATCH", f"/products/{self.products[index]}",
                        {"price": {"amount": 1000 + step % 5000, "currency": "USD"}}, token=self.admin)
        else:
            client.must(200, "PUT", f"/cart/items/{self.products[index]}", {"quantity": 1}, token=self.tokens[index])
            client.must(201, "POST", "/checkout", token=self.tokens[index])


def make_events(shop, total, rate=None):
    """`total` events over the shop's threads, paced at `rate` a second
    when given; (made, failures, seconds)."""
    made, failures, lock = [0], [], threading.Lock()
    start = time.monotonic() + 0.2

    def run(index):
        client = Client(shop.port)
        for number in range(index, total, shop.threads):
            if rate:
                pause = start + number / rate - time.monotonic()
                if pause > 0:
                    time.sleep(pause)
            try:
                shop.event(client, index, number)
                with lock:
                    made[0] += 1
            except (CheckFailed, OSError) as error:
                with lock:
                    failures.append(str(error))
        client.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(shop.threads)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return made[0], failures, time.monotonic() - start


def wait_for(log, names, expected, timeout=180):
    """The arrivals at `names` once `expected` (endpoint, id) pairs were
    answered 2xx, or when none came for 15 s, or at the hang guard."""
    wanted = set(names)
    deadline = time.monotonic() + timeout
    seen, quiet_since = -1, time.monotonic()
    while True:
        arrivals = [a for a in log.arrivals() if a[1] in wanted]
        delivered = {(a[1], a[2]) for a in arrivals if a[4]}
        if len(delivered) >= expected:
            return arrivals
        if len(arrivals) != seen:
            seen, quiet_since = len(arrivals), time.monotonic()
        if time.monotonic() > deadline or time.monotonic() - quiet_since > 15:
            return arrivals
        time.sleep(0.25)


def percentiles(values):
    cut = statistics.quantiles(values, n=100) if len(values) >= 2 else values * 99
    return cut[49], cut[89], cut[98]


def throughput(shop, log, args):
    names = shop.subscribe(args.receiver_url, args.endpoints, args.receiver_dir)
    made, failures, seconds = make_events(shop, args.events)
    arrivals = wait_for(log, names, made * len(names))
    shop.unsubscribe()
    delivered = {}
    for arrived, endpoint, webhook_id, _, ok in arrivals:
        if ok:
            delivered.setdefault((endpoint, webhook_id), arrived)
    if not delivered:
        print("throughput: nothing was delivered", file=sys.stderr)
        return False
    times = sorted(delivered.values())
    window = times[-1] - times[0]
    print(f"throughput: {made} {MADE[shop.make]} events in {seconds:.1f} s ({made / seconds:.0f}/s, "
          f"{len(failures)} failed) to {len(names)} endpoints: {len(delivered)} of {made * len(names)} delivered "
          f"({len(arrivals)} requests) in {window:.1f} s from the first to the last: "
          f"{len(delivered) / max(window, 1e-9):.0f} deliveries/s")
    if failures:
        print("first failures: " + "; ".join(failures[:3]), file=sys.stderr)
    return len(delivered) == made * len(names) and not failures


def latency(shop, log, args):
    names = shop.subscribe(args.receiver_url, args.latency_endpoints, args.receiver_dir)
    total = int(args.rate * args.duration)
    made, failures, seconds = make_events(shop, total, rate=args.rate)
    arrivals = wait_for(log, names, made * len(names))
    shop.unsubscribe()
    first = {}
    for arrived, endpoint, webhook_id, occurred, _ in arrivals:
        key = (endpoint, webhook_id)
        if key not in first or arrived < first[key][0]:
            first[key] = (arrived, occurred)
    if not first:
        print("latency: nothing was delivered", file=sys.stderr)
        return False
    waits = sorted((arrived - occurred) * 1000 for arrived, occurred in first.values())
    p50, p90, p99 = percentiles(waits)
    print(f"latency: {made} {MADE[shop.make]} events in {seconds:.1f} s ({made / seconds:.0f}/s asked "
          f"{args.rate:.0f}/s, {len(failures)} failed) to {len(names)} endpoints: {len(first)} first attempts; "
          f"commit to first attempt p50 {p50:.1f} ms, p90 {p90:.1f} ms, p99 {p99:.1f} ms, max {waits[-1]:.1f} ms")
    if failures:
        print("first failures: " + "; ".join(failures[:3]), file=sys.stderr)
    return len(first) == made * len(names) and not failures


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--admin-email", required=True)
    parser.add_argument("--admin-password", required=True)
    parser.add_argument("--receiver-url", required=True, help="the endpoints' base, e.g. https://localhost:8443/hooks")
    parser.add_argument("--nginx-log", help="the receiver is nginx logging here")
    parser.add_argument("--receiver-dir", help="the receiver is scripts/webhook_receiver.py in this directory")
    parser.add_argument("--mode", choices=["throughput", "latency", "both"], default="both")
    parser.add_argument("--make", choices=sorted(MADE), default="products")
    parser.add_argument("--events", type=int, default=5000, help="throughput: events made")
    parser.add_argument("--endpoints", type=int, default=4, help="throughput: endpoints each event goes to")
    parser.add_argument("--rate", type=float, default=200, help="latency: events a second")
    parser.add_argument("--duration", type=float, default=20, help="latency: seconds")
    parser.add_argument("--latency-endpoints", type=int, default=2, help="latency: endpoints each event goes to")
    parser.add_argument("--threads", type=int, default=16)
    args = parser.parse_args()
    if bool(args.nginx_log) == bool(args.receiver_dir):
        parser.error("give one of --nginx-log and --receiver-dir")
    log = NginxLog(args.nginx_log) if args.nginx_log else ReceiverLog(args.receiver_dir)
    shop = Shop(args.port, args.admin_email, args.admin_password, args.threads, args.make)
    passed = True
    if args.mode in ("throughput", "both"):
        passed &= throughput(shop, log, args)
    if args.mode in ("latency", "both"):
        passed &= latency(shop, log, args)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
