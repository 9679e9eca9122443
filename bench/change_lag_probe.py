#!/usr/bin/env python3
"""Change-feed lag between two replicas, end to end: a stream on replica B
(GET /events as one user) and cart writes for that user on replica A. Each
round sets the user's quantity of one product to a new value on A
(PUT /cart/items/{id}) and waits for B's stream to carry a `cart.updated`
with that quantity. The lag is from A's acknowledgement (its 200 read by
this probe) to the event's arrival here: the change's commit, A's NOTIFY or
B's next poll, B's follower reading the outbox and re-reading the cart, and
the event written to the stream. Rounds are 0-50 ms apart at random, as in
ChangeFeedTests' lag test. Other load (wrk through the balancer) is the
caller's business. Python's standard library only.

usage: change_lag_probe.py A_URL B_URL TOKEN PRODUCT_ID ROUNDS
prints one line: rounds, missed (no event within 5 s), p50, p99, max (ms)
"""
import http.client
import json
import queue
import random
import sys
import threading
import time
import urllib.parse


def stream_events(url, token, arrivals, ready):
    """Reads B's stream; puts (monotonic time, quantity of the product) per cart.updated."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    connection.request("GET", "/events", headers={"Authorization": "Bearer " + token, "Accept": "text/event-stream"})
    response = connection.getresponse()
    if response.status != 200:
        sys.exit(f"change_lag_probe: GET /events on {url} answered {response.status}")
    ready.set()
    event = None
    while True:
        line = response.fp.readline()
        if not line:
            return
        line = line.decode().rstrip("\r\n")
        if line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:") and event == "cart.updated":
            arrivals.put((time.monotonic(), json.loads(line[5:].strip())))
        elif line == "":
            event = None


def quantity(cart, product):
    return next((item["quantity"] for item in cart["items"] if item["product_id"] == product), None)


def main(a_url, b_url, token, product, rounds):
    arrivals, ready = queue.Queue(), threading.Event()
    threading.Thread(target=stream_events, args=(b_url, token, arrivals, ready), daemon=True).start()
    if not ready.wait(10):
        sys.exit("change_lag_probe: the stream did not open within 10 s")
    parts = urllib.parse.urlsplit(a_url)
    writer = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
    lags, missed, rng = [], 0, random.Random(13)
    for round_number in range(rounds):
        want = round_number % 98 + 1  # never the previous round's value
        writer.request("PUT", f"/cart/items/{product}", body=json.dumps({"quantity": want}), headers=headers)
        response = writer.getresponse()
        response.read()
        acknowledged = time.monotonic()
        if response.status != 200:
            sys.exit(f"change_lag_probe: PUT on {a_url} answered {response.status}")
        deadline = acknowledged + 5  # a hang guard: a miss is counted, not timed
        while True:
            try:
                arrived, cart = arrivals.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                missed += 1
                break
            if quantity(cart, product) == want:
                lags.append(max(0.0, arrived - acknowledged) * 1000)
                break
        time.sleep(rng.uniform(0, 0.05))
    lags.sort()
    if not lags:
        sys.exit(f"change_lag_probe: no event arrived in {rounds} rounds")
    pick = lambda q: lags[min(len(lags) - 1, int(q * len(lags)))]
    print(f"rounds {rounds}  missed {missed}  p50 {pick(0.5):.2f} ms  p99 {pick(0.99):.2f} ms  max {lags[-1]:.2f} ms")


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
