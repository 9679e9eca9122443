#!/usr/bin/env python3
"""Time from an order's commit to its "placed" mail accepted by the SMTP
server, at a steady order rate (scripts/bench-mail.sh runs it).

Registers customers, then checks out RATE orders a second for DURATION
seconds (each checkout one cart write and one POST /checkout, spread over
threads and paced), then waits for every order's mail and prints p50, p90,
p99 and the worst of accepted_at (the sink's clock) - created_at (the
order's, taken before its commit, so the figure is, if anything, high).
Python 3 standard library only; the same machine's clock on both sides.
"""
import argparse
import datetime
import glob
import json
import os
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from axiom_client import CheckFailed, Client  # noqa: E402

PASSWORD = "latency bench password"


def created_at(order):
    return datetime.datetime.fromisoformat(order["created_at"].replace("Z", "+00:00")).timestamp()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--mail-dir", required=True)
    parser.add_argument("--admin-email", required=True)
    parser.add_argument("--admin-password", required=True)
    parser.add_argument("--rate", type=float, default=100, help="orders per second")
    parser.add_argument("--duration", type=float, default=20)
    parser.add_argument("--threads", type=int, default=16)
    args = parser.parse_args()

    client = Client(args.port)
    admin = client.must(201, "POST", "/sessions", {"email": args.admin_email, "password": args.admin_password})["token"]
    tag = str(int(time.time()))
    product = client.must(201, "POST", "/products", {
        "sku": f"LAT-{tag}", "name": "Latency mug", "description": "", "price": {"amount": 1200, "currency": "USD"},
        "stock": 1_000_000}, token=admin)["id"]
    tokens = []
    for index in range(args.threads):
        email = f"latency-{tag}-{index}@example.com"
        client.must(202, "POST", "/users", {"name": f"Latency {index}", "email": email, "password": PASSWORD})
        tokens.append(client.must(201, "POST", "/sessions", {"email": email, "password": PASSWORD})["token"])

    orders, errors, lock = {}, [], threading.Lock()
    start = time.monotonic() + 0.5
    total = int(args.rate * args.duration)

    def buyer(index):
        own = Client(args.port)
        for number in range(index, total, args.threads):
            due = start + number / args.rate
            pause = due - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            try:
                own.must(200, "PUT", f"/cart/items/{product}", {"quantity": 1}, token=tokens[index])
                order = own.must(201, "POST", "/checkout", token=tokens[index])
                with lock:
                    orders[order["id"]] = created_at(order)
            except (CheckFailed, OSError) as error:
                with lock:
                    errors.append(str(error))

    threads = [threading.Thread(target=buyer, args=(i,)) for i in range(args.threads)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - start
    accepted = {}
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        for path in glob.glob(os.path.join(args.mail_dir, "*.json")):
            with open(path) as source:
                record = json.load(source)
            with open(path[:-5] + ".eml", "rb") as raw:
                head = raw.read(4096).decode("utf-8", "replace")
            for order in orders:
                if order in head and "Subject: Your order" in head:
                    accepted.setdefault(order, record["accepted_at"])
        if len(accepted) >= len(orders):
            break
        time.sleep(0.5)
    latencies = sorted((accepted[o] - orders[o]) * 1000 for o in accepted)
    if not latencies:
        print("no mail arrived", file=sys.stderr)
        return 1
    cut = statistics.quantiles(latencies, n=100) if len(latencies) >= 2 else latencies * 99
    print(f"{len(orders)} orders in {elapsed:.1f} s ({len(orders) / elapsed:.1f}/s, {len(errors)} failed); "
          f"{len(accepted)} placed mails accepted; commit to accepted: p50 {cut[49]:.0f} ms, p90 {cut[89]:.0f} ms, "
          f"p99 {cut[98]:.0f} ms, max {latencies[-1]:.0f} ms")
    if errors:
        print("first errors: " + "; ".join(errors[:3]), file=sys.stderr)
    return 0 if len(accepted) == len(orders) and not errors else 1


if __name__ == "__main__":
    sys.exit(main())
