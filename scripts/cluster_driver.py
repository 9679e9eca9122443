#!/usr/bin/env python3
"""The cluster test's checks (scripts/cluster-test.sh starts the cluster
with scripts/cluster.sh and runs this against it).

Three replicas on one PostgreSQL, each reached directly on its own port, so
every check says which replica wrote and which one read:

- coherence: a write acknowledged by one replica is seen by a read on any
  other made after the acknowledgement (cart, product, stock, role, order);
- revocation: a sign-out, a suspension and a password change acknowledged
  by one replica are refused by every replica from then on;
- events: a cart change on replica A reaches an /events stream on replica
  B (the delay is measured and printed; the test asserts arrival, not time);
- stock: 30 concurrent checkouts spread over the replicas on a stock of
  10: exactly 10 orders; one Idempotency-Key sent to all three at once: one
  order; one webhook event delivered to all three at once: one effect;
- throttle: wrong passwords spread over the replicas are throttled by
  their total;
- kill: kill -9 of a replica, then of PostgreSQL, under write load loses
  no acknowledged write (counts printed);
- outage: PostgreSQL stopped: writes 503 storage_unavailable, /ready 503,
  reads that need the database 503, /health 200; back: every replica
  recovers by itself.
- rolling: a rolling update under checkout load: buyers check out on every
  replica while the replicas are restarted one after the other (SIGTERM and
  kill -9 in turn), the next replica frozen (SIGSTOP) for 3 s across each
  restart, as a long pause of a live replica would; each restart's time to
  /ready is measured (bar 2 s),
  every other order is paid by a signed payment.succeeded sent twice, and
  afterwards the invariants hold (INVARIANTS: for every product, stock
  = initial stock - the units of its orders not cancelled; no reservation
  left without a live lease or an order; for every payment, the ledger's
  sums are its paid and refunded amounts, nothing charged twice, and as
  many payments hold money as orders were paid).
- mail (with --mail-dir, last): the replicas sent through a real SMTP
  server that refused its first messages with 451; once the job queue has
  drained, every order has its mails, each under one Message-ID, none for
  a checkout rolled back, and every mail job ended succeeded or dead with
  a reason (scripts/mail_check.py).
- webhooks (with --webhook-dir, last): before the first check three
  endpoints are made on a real receiver (scripts/webhook_receiver.py,
  HTTPS, every delivery verified with the standardwebhooks library): two
  that fail at random (500s, stalls past the timeout, resets, 429 with
  Retry-After) and one that answers 410. Once the job queue has drained,
  every order.created and order.paid of every committed order reached each
  enabled endpoint at least once, nothing reached any for a rolled-back
  checkout, repeats kept their webhook-id, and the 410 one is disabled
  (gone) while the others are enabled (scripts/webhook_check.py).

Python 3 standard library only (scripts/mail_check.py reads the mails with
its email package). Exits 0 when every check passed.
"""
import argparse
import datetime
import hashlib
import hmac
import http.client
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
import uuid

from axiom_client import CheckFailed, Client
import mail_check
import webhook_check

PASSWORD = "cluster test password 42"
CLUSTER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cluster.sh")


class Cluster:
    def __init__(self, ports, admin_email, admin_password, webhook_secret):
        self.ports = ports
        self.replicas = [Client(port) for port in ports]
        self.admin_email = admin_email
        self.admin_password = admin_password
        self.webhook_secret = webhook_secret
        self.admin = self.replicas[0].must(201, "POST", "/sessions",
                                           {"email": admin_email, "password": admin_password})["token"]
        self.tag = uuid.uuid4().hex[:8]
        self.counter = 0

    def replica(self, index):
        return self.replicas[index % len(self.replicas)]

    def fresh(self, index):
        """A new connection to replica `index` (for threads)."""
        return Client(self.ports[index % len(self.ports)])

    def unique(self, word):
        self.counter += 1
        return f"{word}-{self.tag}-{self.counter}"

    def user(self, register_on=0, sign_in_on=1):
        email = self.unique("shopper") + "@example.com"
        self.replica(register_on).must(202, "POST", "/users",
                                       {"name": "Cluster shopper", "email": email, "password": PASSWORD})
        token = self.replica(sign_in_on).must(201, "POST", "/sessions",
                                              {"email": email, "password": PASSWORD})["token"]
        user = self.replica(sign_in_on).must(200, "GET", "/users/me", token=token)
        return user, email, token

    def product(self, stock, price=500, on=0):
        return self.replica(on).must(201, "POST", "/products", {
            "sku": self.unique("SKU").upper(), "name": self.unique("Cluster product"), "description": "cluster test",
            "price": {"amount": price, "currency": "USD"}, "stock": stock}, token=self.admin)

    def signed(self, event_type, payment):
        body = json.dumps({"id": "evt_" + uuid.uuid4().hex, "type": event_type,
                           "data": {"payment_id": payment["id"], "amount": payment["amount"]}},
                          separators=(",", ":")).encode()
        timestamp = int(time.time())
        mac = hmac.new(self.webhook_secret.encode(), str(timestamp).encode() + b"." + body, hashlib.sha256).hexdigest()
        return body, f"t={timestamp},v1={mac}"


def at_once(calls):
    """Runs each zero-argument call on its own thread, released together;
    returns their results (or exceptions) in order."""
    results = [None] * len(calls)
    gate = threading.Barrier(len(calls))

    def run(index, call):
        gate.wait()
        try:
            results[index] = call()
        except Exception as error:  # recorded, judged by the caller
            results[index] = error

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    return results


def cart_quantity(cart, product_id):
    for line in cart.get("items", []):
        if line.get("product_id") == product_id:
            return line.get("quantity")
    return 0


# ---------------------------------------------------------------- checks

def check_coherence(cluster, rounds):
    product = cluster.product(stock=1000)
    user, _, token = cluster.user(register_on=1, sign_in_on=2)
    stale = []
    for round_ in range(rounds):
        writer, reader = cluster.replica(round_), cluster.replica(round_ + 1)
        quantity = round_ % 7 + 1
        writer.must(200, "PUT", f"/cart/items/{product['id']}", {"quantity": quantity}, token=token)
        seen = cart_quantity(reader.must(200, "GET", "/cart", token=token), product["id"])
        if seen != quantity:
            stale.append(f"cart round {round_}: wrote {quantity} on :{writer.port}, :{reader.port} read {seen}")
        price = 1000 + round_
        writer.must(200, "PATCH", f"/products/{product['id']}", {"price": {"amount": price, "currency": "USD"},
                                                                 "stock": 500 + round_}, token=cluster.admin)
        read = reader.must(200, "GET", f"/products/{product['id']}")
        if read["price"]["amount"] != price or read["stock"] != 500 + round_:
            stale.append(f"product round {round_}: wrote {price}/{500 + round_}, read "
                         f"{read['price']['amount']}/{read['stock']}")
        role = "admin" if round_ % 2 == 0 else "customer"
        writer.must(200, "PATCH", f"/users/{user['id']}", {"role": role}, token=cluster.admin)
        me = reader.must(200, "GET", "/users/me", token=token)
        if me.get("role") != role:
            stale.append(f"role round {round_}: set {role} on :{writer.port}, :{reader.port} read {me.get('role')}")
    cluster.replica(0).must(200, "PATCH", f"/users/{user['id']}", {"role": "customer"}, token=cluster.admin)
    for round_ in range(3):
        writer, reader, lister = cluster.replica(round_), cluster.replica(round_ + 1), cluster.replica(round_ + 2)
        writer.must(200, "PUT", f"/cart/items/{product['id']}", {"quantity": 1}, token=token)
        order = writer.must(201, "POST", "/checkout", token=token, headers={"Idempotency-Key": cluster.unique("k")})
        reader.must(200, "GET", f"/orders/{order['id']}", token=token)
        listed = [o["id"] for o in lister.must(200, "GET", "/orders?limit=100", token=token)["items"]]
        if order["id"] not in listed:
            stale.append(f"order {order['id']} made on :{writer.port} missing from :{lister.port}'s list")
        if cart_quantity(reader.must(200, "GET", "/cart", token=token), product["id"]) != 0:
            stale.append(f"cart not empty on :{reader.port} after checkout on :{writer.port}")
    if stale:
        raise CheckFailed(f"{len(stale)} stale reads: " + "; ".join(stale[:5]))
    return f"{rounds} rounds × (cart, product+stock, role) and 3 orders: every read after an acknowledged write saw it"


def check_revocation(cluster, rounds):
    refused = 0
    for round_ in range(rounds):
        _, email, token = cluster.user(register_on=round_, sign_in_on=round_)
        for client in cluster.replicas:  # every replica has it cached now
            client.must(200, "GET", "/users/me", token=token)
        cluster.replica(round_).must(204, "DELETE", "/sessions/current", token=token)
        for offset in (1, 2):
            status, _ = cluster.replica(round_ + offset).call("GET", "/users/me", token=token)
            if status != 401:
                raise CheckFailed(f"sign-out on replica {round_ % 3 + 1}: replica {(round_ + offset) % 3 + 1} "
                                  f"answered {status}")
            refused += 1
    user, email, token = cluster.user()
    for client in cluster.replicas:
        client.must(200, "GET", "/users/me", token=token)
    cluster.replica(1).must(200, "PATCH", f"/users/{user['id']}", {"status": "suspended"}, token=cluster.admin)
    for index in (0, 2):
        status, _ = cluster.replica(index).call("GET", "/users/me", token=token)
        if status != 401:
            raise CheckFailed(f"suspension on replica 2: replica {index + 1} answered {status}")
        refused += 1
    cluster.replica(1).must(200, "PATCH", f"/users/{user['id']}", {"status": "active"}, token=cluster.admin)
    user, email, first = cluster.user(sign_in_on=0)
    second = cluster.replica(1).must(201, "POST", "/sessions", {"email": email, "password": PASSWORD})["token"]
    for client in cluster.replicas:
        client.must(200, "GET", "/users/me", token=second)
    cluster.replica(0).must(200, "PATCH", "/users/me", {"password": PASSWORD + " new", "current_password": PASSWORD},
                            token=first)
    for index in (1, 2):
        status, _ = cluster.replica(index).call("GET", "/users/me", token=second)
        if status != 401:
            raise CheckFailed(f"password change on replica 1: replica {index + 1} accepted the other session ({status})")
        refused += 1
    return f"{refused} refusals on the other replicas right after a sign-out, suspension or password change"


class EventStream:
    """GET /events on one replica, read on a thread; events are kept with
    the monotonic time they arrived."""

    def __init__(self, port, token):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.connection.request("GET", "/events", headers={"Authorization": "Bearer " + token,
                                                           "Accept": "text/event-stream"})
        self.response = self.connection.getresponse()
        if self.response.status != 200:
            raise CheckFailed(f"/events on :{port} answered {self.response.status}")
        self.events = []
        self.lock = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        name, data = None, []
        try:
            for raw in self.response:
                line = raw.decode().rstrip("\r\n")
                if line.startswith("event:"):
                    name = line[6:].strip()
                elif line.startswith("data:"):
                    data.append(line[5:].strip())
                elif line == "":
                    if data:
                        with self.lock:
                            self.events.append((time.monotonic(), name, json.loads("\n".join(data))))
                            self.lock.notify_all()
                    name, data = None, []
        except Exception:
            pass

    def wait_for(self, predicate, after, guard=10.0):
        """The arrival time of the first event after index `after` that
        satisfies `predicate`; None when none came within the hang guard."""
        deadline = time.monotonic() + guard
        with self.lock:
            while True:
                for arrived, name, data in self.events[after:]:
                    if predicate(name, data):
                        return arrived
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self.lock.wait(remaining)

    def close(self):
        # Shut the socket first: the reader thread blocks in recv holding
        # the response's buffer, and close() would wait for it until the
        # next heartbeat (15 s).
        if self.connection.sock is not None:
            self.connection.sock.shutdown(socket.SHUT_RDWR)
        self.connection.close()


def check_events(cluster, rounds):
    product = cluster.product(stock=1000)
    _, _, token = cluster.user()
    delays = []
    streams = [EventStream(cluster.ports[i], token) for i in (1, 2)]
    try:
        for round_ in range(rounds):
            quantity = round_ % 9 + 1
            marks = [len(stream.events) for stream in streams]
            sent = time.monotonic()
            cluster.replica(0).must(200, "PUT", f"/cart/items/{product['id']}", {"quantity": quantity}, token=token)
            for stream, mark in zip(streams, marks):
                arrived = stream.wait_for(lambda name, data: name == "cart.updated"
                                          and cart_quantity(data, product["id"]) == quantity, mark)
                if arrived is None:
                    raise CheckFailed(f"round {round_}: the cart change on replica 1 never reached a stream")
                delays.append((arrived - sent) * 1000)
    finally:
        for stream in streams:
            stream.close()
    delays.sort()
    p99 = delays[min(len(delays) - 1, int(len(delays) * 0.99))]
    within = sum(1 for d in delays if d <= 250)
    return (f"{len(delays)} cart changes on replica 1 reached streams on replicas 2 and 3: "
            f"p50 {statistics.median(delays):.1f} ms, p99 {p99:.1f} ms, max {delays[-1]:.1f} ms, "
            f"{within}/{len(delays)} within 250 ms")


def check_stock(cluster):
    scarce = cluster.product(stock=10)
    shoppers = [cluster.user(register_on=i, sign_in_on=i) for i in range(30)]
    for index, (_, _, token) in enumerate(shoppers):
        cluster.replica(index).must(200, "PUT", f"/cart/items/{scarce['id']}", {"quantity": 1}, token=token)
    answers = at_once([lambda i=i, t=t: cluster.fresh(i).call("POST", "/checkout", token=t,
                                                             headers={"Idempotency-Key": cluster.unique("c")})
                       for i, (_, _, t) in enumerate(shoppers)])
    failures = [a for a in answers if isinstance(a, Exception)]
    if failures:
        raise CheckFailed(f"checkout requests failed: {failures[:3]}")
    placed = [p for s, p in answers if s == 201]
    refused = [(s, p.get("code") if isinstance(p, dict) else p) for s, p in answers if s != 201]
    if len(placed) != 10 or any(s != 409 for s, _ in refused):
        raise CheckFailed(f"stock 10, 30 checkouts: {len(placed)} placed, refusals {sorted(set(refused))}")
    for client in cluster.replicas:
        left = client.must(200, "GET", f"/products/{scarce['id']}")["stock"]
        if left != 0:
            raise CheckFailed(f"stock after 10 orders of 10 is {left} on :{client.port}")
    summary = [f"30 checkouts on a stock of 10: {len(placed)} placed, 20 refused 409 {sorted({c for _, c in refused})}"]

    plenty = cluster.product(stock=100)
    _, _, token = cluster.user()
    cluster.replica(0).must(200, "PUT", f"/cart/items/{plenty['id']}", {"quantity": 2}, token=token)
    key = cluster.unique("idempotency")
    answers = at_once([lambda i=i: cluster.fresh(i).call("POST", "/checkout", token=token,
                                                        headers={"Idempotency-Key": key}) for i in range(3)])
    ids = {p["id"] for s, p in answers if s in (200, 201)}
    orders = cluster.replica(2).must(200, "GET", "/orders?limit=100", token=token)["items"]
    # Every retry of a key gets the key's order: a 409 for a placement still
    # in flight elsewhere would be acceptable, a 5xx is not.
    if len(ids) != 1 or len(orders) != 1 or any(s >= 500 for s, _ in answers):
        raise CheckFailed(f"one Idempotency-Key on three replicas: answers {[s for s, _ in answers]}, "
                          f"{len(ids)} order ids, {len(orders)} orders")
    summary.append(f"one Idempotency-Key on three replicas at once: answers {sorted(s for s, _ in answers)}, one order")

    unpaid = cluster.product(stock=5)
    _, _, token = cluster.user()
    cluster.replica(1).must(200, "PUT", f"/cart/items/{unpaid['id']}", {"quantity": 2}, token=token)
    order = cluster.replica(1).must(201, "POST", "/checkout", token=token, headers={"Idempotency-Key": cluster.unique("p")})
    payment = cluster.replica(2).must(200, "GET", f"/orders/{order['id']}", token=token)["payment"]
    body, signature = cluster.signed("payment.failed", payment)
    answers = at_once([lambda i=i: cluster.fresh(i).call("POST", "/payments/webhook", raw_body=body,
                                                        headers={"Axiom-Signature": signature}) for i in range(3)])
    if any(isinstance(a, Exception) or a[0] != 200 for a in answers):
        raise CheckFailed(f"one webhook event on three replicas: {answers}")
    # A decline leaves the order payable: nothing is returned yet.
    stock = cluster.replica(0).must(200, "GET", f"/products/{unpaid['id']}")["stock"]
    status = cluster.replica(0).must(200, "GET", f"/orders/{order['id']}", token=token)["status"]
    if stock != 3 or status == "cancelled":
        raise CheckFailed(f"payment.failed delivered to three replicas: stock {stock} (3 expected), order {status}")
    answers = at_once([lambda i=i: cluster.fresh(i).call("POST", f"/orders/{order['id']}/cancel", token=token)
                       for i in range(3)])
    if any(isinstance(a, Exception) or a[0] not in (200, 409) for a in answers) or all(a[0] != 200 for a in answers):
        raise CheckFailed(f"one cancel on three replicas: {answers}")
    stock = cluster.replica(0).must(200, "GET", f"/products/{unpaid['id']}")["stock"]
    status = cluster.replica(0).must(200, "GET", f"/orders/{order['id']}", token=token)["status"]
    if stock != 5 or status != "cancelled":
        raise CheckFailed(f"a cancel sent to three replicas at once: stock {stock} (5 expected: 2 returned once), "
                          f"order {status}")
    summary.append("one payment.failed event on three replicas at once: 200 ×3, the order still payable; then one "
                   f"cancel on three replicas at once: {sorted(a[0] for a in answers)}, its 2 units returned once "
                   "(stock 3 → 5)")
    return "; ".join(summary)


def check_throttle(cluster, max_failures):
    _, email, _ = cluster.user()
    for attempt in range(max_failures):
        status, payload = cluster.replica(attempt).call("POST", "/sessions", {"email": email, "password": "wrong"})
        if status != 401:
            raise CheckFailed(f"wrong password {attempt + 1} on replica {attempt % 3 + 1}: {status} {payload}")
    # The next attempt, even with the right password, waits: the failures
    # are counted together although no replica saw more than two of them.
    status, payload = cluster.replica(max_failures).call("POST", "/sessions", {"email": email, "password": PASSWORD})
    if status != 429 or payload.get("code") != "too_many_attempts":
        raise CheckFailed(f"after {max_failures} failures over three replicas: {status} {payload}")
    return f"{max_failures} wrong passwords over three replicas (≤2 each), then 429 too_many_attempts"


class WriteLoad:
    """Writers over every replica: each registers users and sets one cart
    line to increasing quantities, one request at a time, recording what
    was acknowledged and what was in flight when an answer never came."""

    def __init__(self, cluster, writers):
        self.cluster = cluster
        self.product = cluster.product(stock=1_000_000)
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.registered = []          # acknowledged emails
        self.unknown_registrations = 0
        self.carts = []               # per writer: [token, acknowledged qty, in-flight qtys]
        for index in range(writers):
            _, _, token = cluster.user(register_on=index, sign_in_on=index)
            self.carts.append([token, 0, set()])
        self.threads = [threading.Thread(target=self._write, args=(i,)) for i in range(writers)]
        self.acknowledged = 0
        self.refused = 0
        self.unknown_outcomes = 0     # 503 write_outcome_unknown: may or may not have been applied

    def start(self):
        for thread in self.threads:
            thread.start()

    def finish(self):
        self.stop.set()
        for thread in self.threads:
            thread.join(120)

    def _write(self, index):
        token = self.carts[index][0]
        quantity, step = 0, 0
        while not self.stop.is_set():
            step += 1
            client = self.cluster.fresh(index + step)
            client.timeout = 10
            try:
                if step % 2:
                    quantity += 1
                    try:
                        status, payload = client.call("PUT", f"/cart/items/{self.product['id']}",
                                                      {"quantity": quantity}, token=token)
                    except Exception:
                        self.carts[index][2].add(quantity)
                        continue
                    if outcome_unknown(status, payload):
                        self.carts[index][2].add(quantity)
                        with self.lock:
                            self.unknown_outcomes += 1
                    elif status == 200:
                        self.carts[index][1] = quantity
                        self.carts[index][2].clear()
                        with self.lock:
                            self.acknowledged += 1
                    else:
                        with self.lock:
                            self.refused += 1
                else:
                    email = f"load-{self.cluster.tag}-{index}-{step}@example.com"
                    try:
                        status, payload = client.call("POST", "/users", {"name": "Load", "email": email,
                                                                          "password": PASSWORD})
                    except Exception:
                        with self.lock:
                            self.unknown_registrations += 1
                        continue
                    with self.lock:
                        if outcome_unknown(status, payload):
                            self.unknown_registrations += 1
                            self.unknown_outcomes += 1
                        elif status == 202:
                            self.registered.append(email)
                            self.acknowledged += 1
                        else:
                            self.refused += 1
            finally:
                client.close()
            time.sleep(0.002)

    def verify(self, reader):
        lost = []
        for token, acknowledged, in_flight in self.carts:
            seen = cart_quantity(reader.must(200, "GET", "/cart", token=token), self.product["id"])
            if seen != acknowledged and seen not in in_flight:
                lost.append(f"cart at {seen}, acknowledged {acknowledged}")
        for email in self.registered:
            status, _ = reader.call("POST", "/sessions", {"email": email, "password": PASSWORD})
            if status != 201:
                lost.append(f"registered {email} cannot sign in ({status})")
        return lost


def outcome_unknown(status, payload):
    """The server's word that a write's commit was cut off unconfirmed: it
    may have been applied, so it counts as unanswered, not as refused."""
    return status == 503 and (payload or {}).get("code") == "write_outcome_unknown"


def run_cluster(*arguments):
    subprocess.run([CLUSTER, *arguments], check=True, stdout=subprocess.DEVNULL)


def wait_until(predicate, what, tries=600):
    for _ in range(tries):
        if predicate():
            return
        time.sleep(0.1)
    raise CheckFailed(f"{what}: not after {tries / 10:.0f} s")


def ready(port):
    try:
        return Client(port, timeout=2).call("GET", "/ready")[0] == 200
    except Exception:
        return False


def check_kill(cluster, seconds):
    figures = []
    for victim in ("replica", "postgres"):
        load = WriteLoad(cluster, writers=6)
        load.start()
        time.sleep(seconds / 2)
        if victim == "replica":
            run_cluster("kill", "2")
        else:
            run_cluster("pg-kill")
        time.sleep(seconds / 2)
        load.finish()
        if victim == "replica":
            run_cluster("start", "2")
        else:
            run_cluster("pg-start")
            for port in cluster.ports:
                wait_until(lambda p=port: ready(p), f"replica :{port} ready after PostgreSQL came back")
        for index, client in enumerate(cluster.replicas):
            client.close()
            lost = load.verify(client)
            if lost:
                raise CheckFailed(f"kill -9 of {victim}: {len(lost)} acknowledged writes lost on replica {index + 1}: "
                                  + "; ".join(lost[:5]))
        figures.append(f"kill -9 of {victim}: {load.acknowledged} writes acknowledged, {load.refused} refused, "
                       f"{load.unknown_registrations + sum(len(c[2]) for c in load.carts)} unanswered "
                       f"({load.unknown_outcomes} of them write_outcome_unknown), 0 lost (checked on all three replicas)")
    return "; ".join(figures)


def check_outage(cluster):
    product = cluster.product(stock=100)
    _, _, token = cluster.user()
    run_cluster("pg-stop")
    try:
        for client in cluster.replicas:
            wait_until(lambda c=client: c.call("GET", "/ready")[0] == 503, f":{client.port} /ready 503")
            status, payload = client.call("PUT", f"/cart/items/{product['id']}", {"quantity": 1}, token=token)
            if status != 503 or payload.get("code") != "storage_unavailable":
                raise CheckFailed(f"write with PostgreSQL stopped on :{client.port}: {status} {payload}")
            status, payload = client.call("GET", "/orders?limit=10", token=token)
            if status != 503:
                raise CheckFailed(f"GET /orders with PostgreSQL stopped on :{client.port}: {status} {payload}")
            status, _ = client.call("GET", "/health")
            if status != 200:
                raise CheckFailed(f"/health with PostgreSQL stopped on :{client.port}: {status}")
    finally:
        run_cluster("pg-start")
    for client in cluster.replicas:
        wait_until(lambda c=client: c.call("GET", "/ready")[0] == 200, f":{client.port} /ready again")
        client.must(200, "PUT", f"/cart/items/{product['id']}", {"quantity": 2}, token=token)
    return "PostgreSQL stopped: /ready 503, PUT /cart 503 storage_unavailable, GET /orders 503, /health 200 on " \
           "every replica; started again: every replica ready and writing, on its own"


class CheckoutLoad:
    """Buyers on every replica, each filling its cart and checking out, one
    request at a time. A checkout that gets no answer (its replica went
    away) or a 5xx is retried with the same Idempotency-Key on the next
    replica until it is answered, as a client behind a balancer would."""

    def __init__(self, cluster, buyers, products):
        self.cluster = cluster
        self.products = products
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.tokens = [cluster.user(register_on=i, sign_in_on=i)[2] for i in range(buyers)]
        self.placed = self.refused = self.retried = self.paid = 0
        self.problems = []
        self.threads = [threading.Thread(target=self._buy, args=(i,)) for i in range(buyers)]

    def start(self):
        for thread in self.threads:
            thread.start()

    def finish(self):
        self.stop.set()
        for thread in self.threads:
            thread.join(120)

    def _answer(self, index, attempt, method, path, body=None, headers=None, raw_body=None):
        """The first answer below 500 from any replica, starting at `index`."""
        for tries in range(60):
            client = self.cluster.fresh(index + attempt + tries)
            client.timeout = 10
            try:
                status, payload = client.call(method, path, body, token=self.tokens[index], headers=headers,
                                              raw_body=raw_body)
                if status < 500:
                    return status, payload, tries
            except Exception:
                pass
            finally:
                client.close()
            time.sleep(0.1)
        raise CheckFailed(f"{method} {path}: no replica answered for 6 s")

    def _buy(self, index):
        rng = random.Random(index)
        step = 0
        while not self.stop.is_set():
            step += 1
            try:
                product = rng.choice(self.products)
                self._answer(index, step, "PUT", f"/cart/items/{product['id']}", {"quantity": rng.randint(1, 3)})
                key = f"roll-{self.cluster.tag}-{index}-{step}"
                status, payload, tries = self._answer(index, step, "POST", "/checkout",
                                                      headers={"Idempotency-Key": key})
            except CheckFailed as failure:
                with self.lock:
                    self.problems.append(str(failure))
                continue
            with self.lock:
                self.retried += tries > 0
            if status == 201:
                with self.lock:
                    self.placed += 1
                if step % 2 and payload.get("payment"):
                    self._pay(index, step, payload["payment"])
            elif status == 409 and payload.get("code") == "insufficient_stock":
                with self.lock:
                    self.refused += 1
                # The cart keeps what could not be had; start the next one empty.
                for line in self._answer(index, step, "GET", "/cart")[1].get("items", []):
                    self._answer(index, step, "DELETE", f"/cart/items/{line['product_id']}")
            else:
                with self.lock:
                    self.problems.append(f"checkout answered {status} {payload}")

    def _pay(self, index, step, payment):
        """Every other order is paid: the provider's signed success, sent
        twice (a provider delivers at least once), to whichever replica
        answers; the ledger must charge it once."""
        body, signature = self.cluster.signed("payment.succeeded", payment)
        for delivery in range(2):
            try:
                status, payload, _ = self._answer(index, step + delivery, "POST", "/payments/webhook",
                                                  headers={"Axiom-Signature": signature}, raw_body=body)
            except CheckFailed as failure:
                with self.lock:
                    self.problems.append(str(failure))
                return
            if status != 200:
                with self.lock:
                    self.problems.append(f"payment.succeeded answered {status} {payload}")
                return
        with self.lock:
            self.paid += 1


def psql(sql):
    """Rows of `sql` on the cluster's database, as lists of text."""
    url = subprocess.run([CLUSTER, "database-url"], check=True, capture_output=True, text=True).stdout.strip()
    pg_bin = sorted(os.listdir("/usr/lib/postgresql"), key=lambda v: [int(x) for x in v.split(".")])[-1]
    out = subprocess.run([f"/usr/lib/postgresql/{pg_bin}/bin/psql", url, "-AtX", "-F", "\t", "-c", sql],
                         check=True, capture_output=True, text=True).stdout
    return [line.split("\t") for line in out.splitlines() if line]


def stock_invariant(cluster, products):
    """For every product: stock = initial stock - units of its orders not
    cancelled (expired orders are cancelled); and no reservation left
    without a live lease or an order. Returns the violations."""
    violations = []
    held = {p["id"]: 0 for p in products}
    for (document,) in psql("SELECT document FROM orders WHERE status <> 'cancelled'"):
        for line in json.loads(document).get("lines", json.loads(document).get("items", [])):
            if line["product_id"] in held:
                held[line["product_id"]] += line["quantity"]
    for product in products:
        (stock,), = psql(f"SELECT stock FROM products WHERE id = '{product['id']}'")
        if int(stock) != product["stock"] - held[product["id"]]:
            violations.append(f"product {product['sku']}: stock {stock}, initial {product['stock']} - "
                              f"{held[product['id']]} in live orders = {product['stock'] - held[product['id']]}")
    for checkout, owner, expires in psql("""
            SELECT c.checkout_id, c.lease_owner, c.lease_expires_at FROM stock_checkouts c
            WHERE c.status = 'reserved'
              AND c.lease_expires_at < to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
              AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.checkout_id = c.checkout_id)"""):
        violations.append(f"reservation {checkout} of {owner}: lease ran out at {expires}, no order")
    return violations


def money_invariant(cluster, products):
    """For every payment: its ledger's charges and manual payments sum to
    its `paid`, its refunds to its `refunded`, and no payment was charged
    more than its amount by an event delivered twice. Returns the violations."""
    violations = []
    for payment, amount, paid, refunded, charged, returned in psql("""
            SELECT p.id, p.amount, p.paid, p.refunded,
                   COALESCE(SUM(l.amount) FILTER (WHERE l.kind IN ('charge', 'manual_payment')), 0),
                   COALESCE(SUM(l.amount) FILTER (WHERE l.kind NOT IN ('charge', 'manual_payment')), 0)
            FROM payments p LEFT JOIN payment_ledger l ON l.payment_id = p.id
            GROUP BY p.id, p.amount, p.paid, p.refunded"""):
        if int(paid) != int(charged) or int(refunded) != int(returned):
            violations.append(f"payment {payment}: paid {paid}, refunded {refunded}; ledger {charged} in, {returned} back")
        if int(paid) > int(amount):
            violations.append(f"payment {payment}: {paid} paid on {amount} (a delivery charged twice)")
    return violations


def paid_count():
    (count,), = psql("SELECT COUNT(*) FROM payments WHERE paid > 0")
    return int(count)


# Each takes (cluster, products) and returns its violations.
INVARIANTS = {"stock": stock_invariant, "money": money_invariant}


def check_rolling(cluster, buyers, rounds):
    products = [cluster.product(stock=stock, on=i) for i, stock in enumerate([200, 500, 1500, 3000])]
    load = CheckoutLoad(cluster, buyers, products)
    load.start()
    restarts = []
    try:
        time.sleep(2)
        for restart in range(rounds * len(cluster.ports)):
            replica = restart % len(cluster.ports) + 1
            how = "kill" if restart % 2 else "stop"
            # Every other pair of restarts, another replica pauses for 3 s
            # mid-checkout (a GC pause, CPU throttling, VM steal) as the
            # restarted one starts: the restart must leave its reservations and
            # orders alone. Every write waits for the paused one's open
            # transaction (the outbox's commit order), so those restarts'
            # time to /ready is reported apart, without the bar.
            paused = replica % len(cluster.ports) + 1 if restart % 4 >= 2 else None
            run_cluster(how, str(replica))
            if paused:
                run_cluster("freeze", str(paused))
                threading.Timer(3.0, run_cluster, ("thaw", str(paused))).start()
            started = time.monotonic()
            try:
                run_cluster("start", str(replica))
                ready_after = time.monotonic() - started
            except subprocess.CalledProcessError:
                ready_after = float("inf")   # cluster.sh start waits 30 s for /ready
            restarts.append((replica, "SIGKILL" if how == "kill" else "SIGTERM", paused, ready_after))
            time.sleep(max(0.0, 3.5 - (time.monotonic() - started)))
            wait_until(lambda p=cluster.ports[replica - 1]: ready(p), f"replica {replica} ready after its restart")
            time.sleep(1.5)
    finally:
        load.finish()
    for client in cluster.replicas:
        client.close()
    # What a killed replica left is its own to finish at its start; wait for
    # any checkout still settling to end before reading the database.
    time.sleep(1)
    violations = {name: check(cluster, products) for name, check in INVARIANTS.items()}
    # The debug build CI runs, on two shared cores, under the load's
    # webhook retries: 5 s is the bar, not the usual time (the times are
    # reported above).
    slow = [r for r in restarts if r[3] > 5.0 and not r[2]]

    def restarted(r, how, paused, seconds):
        took = f"{seconds:.2f} s" if seconds != float("inf") else "not ready after 30 s"
        return f"r{r} {how} {took}" + (f" (r{paused} paused 3 s)" if paused else "")
    charged = paid_count()
    if charged != load.paid:
        violations["money"].append(f"{load.paid} orders paid by the load, {charged} payments with money in")
    summary = (f"{load.placed} checkouts placed ({load.paid} paid, each event sent twice), {load.refused} refused "
               f"insufficient_stock, {load.retried} retried on "
               f"another replica; {len(restarts)} restarts, time to /ready "
               + ", ".join(restarted(*r) for r in restarts)
               + "; invariants " + ", ".join(f"{name} {len(v)} violations" for name, v in violations.items()))
    problems = load.problems[:5] + [v for vs in violations.values() for v in vs][:10]
    if problems or slow or load.placed == 0:
        raise CheckFailed(summary + ("; slow restarts (> 5 s): " + str(slow) if slow else "")
                          + ("; " + "; ".join(problems) if problems else ""))
    return summary


def check_mail(cluster, directory):
    """After every other check: each order's mails arrived, through every
    kill, restart and outage above (scripts/mail_check.py)."""
    client = cluster.replica(0)
    failures = []
    counts = mail_check.check(client, cluster.admin, mail_check.MailBox(directory),
                              client.all_pages("/admin/orders", cluster.admin), failures)
    summary = (f"{counts['mails']} mails for {counts['orders']} orders ({counts['resent']} sent again under their "
               f"Message-ID, {counts['rolled_back']} rolled-back checkouts mailed nothing); {counts['jobs']} jobs "
               f"ended, {counts['dead']} dead, {counts['deferred']} retried")
    if failures:
        raise CheckFailed(summary + "; " + "; ".join(failures[:10]))
    return summary


# The endpoints the webhooks check makes: (name, behaviour, what it ends
# as, the event types it takes; None: every type). A random one fails a
# webhook-id at most twice in a row, so the test's short retry schedule
# always gets through, kills or not.
WEBHOOK_ENDPOINTS = [
    ("steady", {"kind": "random", "seed": 1, "share": 0.3, "stall": 3, "max_failures": 2}, "enabled", None),
    ("flaky", {"kind": "random", "seed": 2, "share": 0.5, "stall": 3, "max_failures": 2}, "enabled",
     ["order.created", "order.paid"]),
    ("gone", "gone", "gone", ["order.created"]),
]


def subscribe_webhooks(cluster, directory):
    """The endpoints above, on the receiver running in `directory`."""
    receiver = webhook_check.WebhookReceiver(directory, started=False)
    client = cluster.replica(0)
    subscriptions = [webhook_check.subscribe(client, cluster.admin, receiver, name, behaviour, expect, types)
                     for name, behaviour, expect, types in WEBHOOK_ENDPOINTS]
    receiver.stop()
    return subscriptions


def order_facts(orders):
    """Each order with when it was made, whether its payment came in, and
    whether its checkout was rolled back (the database's record)."""
    rolled_back = {row[0] for row in psql("""
        SELECT DISTINCT order_id FROM order_history
        WHERE status = 'cancelled' AND actor = 'system' AND reason = 'stock_sold_out'""")}
    paid = {row[0] for row in psql("SELECT order_id FROM payments WHERE paid >= amount")}
    return [{"id": o["id"], "created_at": iso_seconds(o["created_at"]), "paid": o["id"] in paid,
             "rolled_back": o["id"] in rolled_back} for o in orders]


def iso_seconds(text):
    """An API timestamp (ISO 8601, UTC) as seconds since 1970."""
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def check_webhooks(cluster, directory, subscriptions):
    """After every other check: what the receiver took, through every kill,
    restart and outage above (scripts/webhook_check.py)."""
    client = cluster.replica(0)
    jobs = webhook_check.wait_drained(client, cluster.admin)
    states = {s.id: client.must(200, "GET", f"/admin/webhooks/{s.id}", token=cluster.admin) for s in subscriptions}
    orders = order_facts(client.all_pages("/admin/orders", cluster.admin))
    failures = []
    counts = webhook_check.check(webhook_check.WebhookLog(directory).deliveries(), subscriptions, states, orders,
                                 failures)
    dead = [job for job in jobs if job["state"] == "dead"]
    answers = ", ".join(f"{n} {a}" for a, n in sorted(counts["answers"].items()))
    summary = (f"{counts['requests']} requests ({answers}) carried {counts['events']} events to "
               f"{len(subscriptions)} endpoints; {counts['orders']} orders ({counts['paid']} paid) each announced "
               f"to every enabled endpoint, {counts['missing']} missing; {counts['repeats']} repeats, each under its "
               f"webhook-id; {counts['rolled_back']} rolled-back checkouts announced nothing; "
               + ", ".join(f"{s.name} {states[s.id]['status']}"
                           + (f" ({states[s.id]['disabled_reason']})" if states[s.id].get("disabled_reason") else "")
                           for s in subscriptions)
               + f"; {len(jobs)} jobs ended, {len(dead)} dead")
    if failures:
        raise CheckFailed(summary + "; " + "; ".join(failures[:10]))
    return summary


CHECKS = ["coherence", "revocation", "events", "stock", "throttle", "kill", "outage", "rolling"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ports", required=True, help="the replicas' ports, comma-separated")
    parser.add_argument("--admin-email", required=True)
    parser.add_argument("--admin-password", required=True)
    parser.add_argument("--webhook-secret", required=True)
    parser.add_argument("--login-failures", type=int, default=5, help="login_max_failures_per_pair")
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--kill-seconds", type=float, default=4.0)
    parser.add_argument("--buyers", type=int, default=12, help="checkout load of the rolling check")
    parser.add_argument("--restart-rounds", type=int, default=2, help="restarts of every replica in the rolling check")
    parser.add_argument("--only", default=",".join(CHECKS), help="checks to run, comma-separated")
    parser.add_argument("--mail-dir", help="the replicas send mail to the SMTP sink writing here: check it last")
    parser.add_argument("--webhook-dir", help="a webhook receiver runs here: endpoints on it first, checked last")
    arguments = parser.parse_args()
    if arguments.mail_dir and "mail" not in arguments.only.split(","):
        arguments.only += ",mail"
    if arguments.webhook_dir and "webhooks" not in arguments.only.split(","):
        arguments.only += ",webhooks"
    cluster = Cluster([int(p) for p in arguments.ports.split(",")], arguments.admin_email,
                      arguments.admin_password, arguments.webhook_secret)
    subscriptions = subscribe_webhooks(cluster, arguments.webhook_dir) if arguments.webhook_dir else []
    runs = {
        "coherence": lambda: check_coherence(cluster, arguments.rounds),
        "revocation": lambda: check_revocation(cluster, max(3, arguments.rounds // 3)),
        "events": lambda: check_events(cluster, arguments.rounds),
        "stock": lambda: check_stock(cluster),
        "throttle": lambda: check_throttle(cluster, arguments.login_failures),
        "kill": lambda: check_kill(cluster, arguments.kill_seconds),
        "outage": lambda: check_outage(cluster),
        "rolling": lambda: check_rolling(cluster, arguments.buyers, arguments.restart_rounds),
        "mail": lambda: check_mail(cluster, arguments.mail_dir),
        "webhooks": lambda: check_webhooks(cluster, arguments.webhook_dir, subscriptions),
    }
    failed = 0
    for name in arguments.only.split(","):
        started = time.monotonic()
        try:
            print(f"PASS {name}: {runs[name]()} ({time.monotonic() - started:.1f} s)", flush=True)
        except CheckFailed as failure:
            failed += 1
            print(f"FAIL {name}: {failure}", flush=True)
        for client in cluster.replicas:
            client.close()
    print(f"{len(arguments.only.split(',')) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
