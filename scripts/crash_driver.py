#!/usr/bin/env python3
"""One run of the kill -9 crash test (scripts/crash-test.sh runs several).

Starts the release binary on a fresh database (payments configured, a short
payment_timeout so unpaid orders expire during the run), stocks a few scarce
products, lets concurrent writers register, sign in and out, change carts,
check out, pay or decline their payments through the signed webhook (as
scripts/pay.py signs; a decline leaves the order payable), pay twice (the
excess owed back), have the admin record manual payments, cancel (a paid
order then owes a refund, which a refund.succeeded event or an admin's
manual refund settles), sends
SIGKILL at a random moment, restarts the server on the same file (or, with
--database-url, the same fresh PostgreSQL schema) and checks that

- every write answered 2xx is there (users, sessions and sign-outs, carts,
  orders and their cancellations, payment events and manual payments: each
  payment is in the status last acknowledged, or where an expiry or the
  request in flight at the kill could have moved it),
- every order agrees with its payment once start-up reconciliation and the
  expiry sweep ran: paid → confirmed; failed, expired, cancelled, refund
  pending or refunded → cancelled; none left pending past its expiry,
- what an unanswered request (in flight at the kill) left behind is
  consistent: an order it made matches the cart it was made from and that
  cart is empty; a cart write is either applied or not,
- every product's stock equals its initial stock minus the units of its
  non-cancelled orders,
- the money: every acknowledged money movement is a ledger entry (by its
  event id or reference), every order's ledger sums are its payment's paid
  and refunded, no admin refund goes beyond what was paid, and what the
  payment says is owed back is what its amounts say; the run reports the
  ledger's totals,
- a checkout retried with the same Idempotency-Key returns the same order.

Each customer is driven by one thread, one request at a time, so the
acknowledged answers give a total order of that customer's writes and the
expected cart is exact. Python 3 standard library only.
"""
import argparse
import hashlib
import hmac
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

from axiom_client import CheckFailed, Client
import mail_check

ADMIN_EMAIL = "crash-admin@example.com"
ADMIN_PASSWORD = "crash test admin password"
PASSWORD = "crash test password 42"
STOCKS = [5, 10, 25, 60, 150, 1000]   # scarce on purpose: checkouts run stock out
PRICES = [1999, 450, 12000, 99, 2500, 7]
WEBHOOK_SECRET = "crash test webhook secret"
PAYMENT_TIMEOUT = 2   # seconds: unpaid orders expire while the writers run
# The order status each payment status leaves its order in.
ORDER_FOLLOWS = {"requires_payment": "pending", "succeeded": "confirmed", "failed": "cancelled",
                 "expired": "cancelled", "cancelled": "cancelled", "refund_pending": "cancelled",
                 "refunded": "cancelled"}
# Where a payment may be after the request in flight at the kill, by kind.
IN_FLIGHT_EFFECT = {"pay": {"succeeded", "refund_pending"}, "fail": set(), "refund": {"refunded"},
                    "manual_refund": {"refunded"}, "manual": {"succeeded", "refund_pending"},
                    "cancel": {"cancelled", "refund_pending", "refunded"}}
# The ledger kinds that bring money in.
INCOMING = {"charge", "manual_payment"}


def signed_event(payment, event_type, amount=None, counter=[0]):
    """A provider event for `payment` (its amount unless `amount` is given),
    its id and its Axiom-Signature (as scripts/pay.py makes it)."""
    counter[0] += 1
    event_id = f"evt_crash_{os.getpid()}_{threading.get_ident()}_{counter[0]}"
    body = json.dumps({"id": event_id, "type": event_type,
                       "data": {"payment_id": payment["id"], "amount": amount or payment["amount"]}},
                      separators=(",", ":")).encode()
    timestamp = int(time.time())
    mac = hmac.new(WEBHOOK_SECRET.encode(), str(timestamp).encode() + b"." + body, hashlib.sha256).hexdigest()
    return event_id, body, f"t={timestamp},v1={mac}"


# ---------------------------------------------------------------- server

def fresh_schema(base_url, name):
    """Creates schema `name` on the PostgreSQL server at `base_url` (with
    psql, PostgreSQL's own client) and returns a URL whose connections use
    it (libpq's options set search_path)."""
    psql = subprocess.run(["sh", "-c", "command -v psql || ls /usr/lib/postgresql/*/bin/psql | tail -n 1"],
                          capture_output=True, text=True).stdout.split()
    if not psql:
        raise CheckFailed("psql not found: needed to make the run's schema")
    subprocess.run([psql[0], base_url, "-v", "ON_ERROR_STOP=1", "-qc", f"CREATE SCHEMA {name}"], check=True,
                   capture_output=True)
    return base_url + ("&" if "?" in base_url else "?") + f"options=-csearch_path%3D{name}"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    def __init__(self, binary, database, log_path, database_url=None, extra_args=()):
        self.binary, self.database, self.log_path = binary, database, log_path
        self.extra_args = list(extra_args)
        self.storage = ["--database-url", database_url] if database_url else ["--database", self.database]
        self.process = None
        self.port = None

    def start(self):
        self.port = free_port()
        # The caller's settings stay out, but for the load-test rate limits
        # (scripts/load-test-env.sh): the driver registers and checks out
        # far faster from one address than a shop lets a client.
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("AXIOM_") or k.startswith("AXIOM_RATE_LIMIT_")}
        # Each start takes a new port: the name stays, so the restarted
        # process finishes at once what its killed predecessor held (its
        # checkout leases), as a replica with a stable instance_name does.
        env.update(AXIOM_ADMIN_EMAIL=ADMIN_EMAIL, AXIOM_ADMIN_PASSWORD=ADMIN_PASSWORD,
                   AXIOM_PAYMENT_WEBHOOK_SECRET=WEBHOOK_SECRET, AXIOM_INSTANCE_NAME="crash-test")
        log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            [self.binary, "--host", "127.0.0.1", "--port", str(self.port), *self.storage,
             "--log-level", "info", "--payment-timeout", str(PAYMENT_TIMEOUT), *self.extra_args],
            env=env, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        probe = Client(self.port, timeout=5)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise CheckFailed(f"server exited with {self.process.returncode} at start-up:\n{self.log_tail()}")
            try:
                if probe.call("GET", "/ready")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.05)
        raise CheckFailed(f"server not ready within 60 s:\n{self.log_tail()}")

    def kill9(self):
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                return self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                return None
        return self.process.returncode if self.process else None

    def reconciliation(self):
        """What the last start-up repaired (its checkouts_reconciled log line)."""
        found = "none logged"
        with open(self.log_path, errors="replace") as handle:
            for line in handle:
                if '"checkouts_reconciled"' in line:
                    event = json.loads(line)
                    found = ", ".join(f"{k} {v}" for k, v in event.items()
                                      if k not in ("time", "level", "event"))
        return found

    def log_tail(self, lines=20):
        with open(self.log_path, errors="replace") as handle:
            return "".join(handle.readlines()[-lines:])


# ---------------------------------------------------------------- writers

def cart_of(payload):
    """A cart answer → {product_id: quantity} (unpriceable lines included)."""
    lines = {item["product_id"]: item["quantity"] for item in payload.get("items", [])}
    for item in payload.get("unavailable_items", []):
        lines[item["product_id"]] = item["quantity"]
    return lines


def lines_of(order):
    return sorted((item["product_id"], item["quantity"], item["unit_price"]["amount"], item["line_total"]["amount"])
                  for item in order["items"])


class Shopper(threading.Thread):
    """One customer: cart changes, checkouts (each with a fresh
    Idempotency-Key), the provider's events for their payments (success,
    failure, refund), now and then a manual payment by the admin and a
    cancellation, one at a time, until the server dies under it."""

    def __init__(self, index, port, user, token, products, seed, stop, admin):
        super().__init__(daemon=True)
        self.index, self.port, self.user, self.token = index, port, user, token
        self.products, self.rng, self.stop, self.admin = products, random.Random(seed), stop, admin
        self.cart = {}            # as last acknowledged
        self.acknowledged = {"cart": 0, "checkout": 0, "cancel": 0, "pay": 0, "fail": 0, "refund": 0, "manual": 0,
                             "manual_refund": 0, "overpay": 0}
        self.movements = {}       # order id → event ids and references of its acknowledged money movements
        self.sent = None          # the event id or reference of the request being sent
        self.payment_refusals = 0  # payment writes refused because an expiry came first (409)
        self.refused = 0          # checkouts answered 409 insufficient_stock
        self.unpaid_refusals = 0  # checkouts answered 409 too_many_unpaid_*: the customer's unpaid orders at their bound
        self.orders = {}          # id → order as acknowledged (status and payment updated by acknowledged writes)
        self.keys = {}            # Idempotency-Key → order id, acknowledged checkouts
        self.last_kind = None     # kind of the last acknowledged write
        self.unknown = None       # the request in flight at the kill: (kind, detail, cart before)
        self.anomalies = []

    def run(self):
        client = Client(self.port)
        attempt, short = 0, None   # short: the product a refused checkout named
        while not self.stop.is_set():
            choice = self.rng.random()
            waiting, owed, paid = self.with_payment("requires_payment"), self.owed(), self.with_payment("succeeded")
            if short is not None and self.cart:
                op = ("cart", ("DELETE", short if short in self.cart else self.rng.choice(sorted(self.cart))))
            elif waiting and choice < 0.30:
                pick = self.rng.random()
                op = ("pay" if pick < 0.7 else "fail" if pick < 0.9 else "manual", self.rng.choice(waiting))
            elif owed and choice < 0.36:
                op = ("refund" if self.rng.random() < 0.5 else "manual_refund", self.rng.choice(owed))
            elif paid and choice < 0.38:
                op = ("overpay", self.rng.choice(paid))
            elif not self.cart or choice < 0.60:
                op = ("cart", ("PUT", self.rng.choice(self.products)["id"], self.rng.randint(1, 3)))
            elif choice < 0.68:
                op = ("cart", ("DELETE", self.rng.choice(sorted(self.cart))))
            elif choice < 0.94 or not self.cancellable():
                attempt += 1
                op = ("checkout", f"u{self.index}-{self.user['id'][:8]}-{attempt}")
            else:
                op = ("cancel", self.rng.choice(self.cancellable()))
            short = None
            try:
                status, payload = self.send(client, op)
            except Exception as error:  # no answer: the server is gone
                self.unknown = (op[0], op[1], dict(self.cart), repr(error))
                return
            kind = op[0]
            if status >= 500:
                self.unknown = (kind, op[1], dict(self.cart), f"answered {status}")
                self.anomalies.append(f"{self.user['email']}: {kind} {op[1]} answered {status}: {payload}")
                return
            if kind == "cart" and status == 200:
                expected = dict(self.cart)
                if op[1][0] == "PUT":
                    expected[op[1][1]] = op[1][2]
                else:
                    expected.pop(op[1][1], None)
                self.cart = cart_of(payload)
                if self.cart != expected:
                    self.anomalies.append(f"{self.user['email']}: cart answered {self.cart}, expected {expected}")
            elif kind == "checkout" and status == 201:
                ordered = {item["product_id"]: item["quantity"] for item in payload["items"]}
                if ordered != self.cart:
                    self.anomalies.append(f"{self.user['email']}: order {payload['id']} has {ordered}, cart was {self.cart}")
                if payload["status"] != "pending" or (payload.get("payment") or {}).get("status") != "requires_payment":
                    self.anomalies.append(f"{self.user['email']}: order {payload['id']} answered as {payload['status']}"
                                          f" with payment {payload.get('payment')}")
                self.orders[payload["id"]] = payload
                self.keys[op[1]] = payload["id"]
                self.cart = {}
            elif kind == "checkout" and status == 409 and (payload or {}).get("code") in (
                    "too_many_unpaid_orders", "too_many_unpaid_units"):
                # The customer's unpaid orders are at their bound: refused
                # before anything was reserved, the cart as it was.
                self.unpaid_refusals += 1
                continue
            elif kind == "checkout" and status == 409 and (payload or {}).get("code") == "insufficient_stock":
                self.refused += 1
                detail = payload.get("detail", "")
                short = next((p for p in self.cart if p in detail), "")
                continue
            elif kind == "cancel" and status == 200:
                if payload["status"] != "cancelled":
                    self.anomalies.append(f"{self.user['email']}: cancel of {op[1]} answered {payload['status']}")
                self.orders[op[1]] = payload
            elif kind in ("pay", "fail", "refund", "overpay") and status == 200:
                self.acknowledge_payment(op[1], payload["payment"])
                if kind != "fail":
                    self.movements.setdefault(op[1], []).append(self.sent)
            elif kind in ("manual", "manual_refund") and status == 200:
                self.orders[op[1]] = payload
                self.movements.setdefault(op[1], []).append(self.sent)
            elif kind in ("cancel", "refund") and status == 409:
                # The expiry sweep cancelled the order first: refused, nothing
                # changed by this request (the check allows the expiry).
                self.payment_refusals += 1
                continue
            else:
                self.anomalies.append(f"{self.user['email']}: {kind} {op[1]} answered {status}: {payload}")
                return
            self.acknowledged[kind] += 1
            self.last_kind = kind

    def cancellable(self):
        return sorted(i for i, o in self.orders.items() if o["status"] in ("pending", "confirmed"))

    def with_payment(self, status):
        return sorted(i for i, o in self.orders.items() if (o.get("payment") or {}).get("status") == status)

    def owed(self):
        return sorted(i for i, o in self.orders.items()
                      if ((o.get("payment") or {}).get("refund_owed") or {}).get("amount", 0) > 0)

    def acknowledge_payment(self, order_id, payment):
        order = dict(self.orders[order_id])
        order["payment"] = payment
        order["status"] = ORDER_FOLLOWS[payment["status"]]
        self.orders[order_id] = order

    def send(self, client, op):
        kind, detail = op
        payment = (self.orders.get(detail) or {}).get("payment") if isinstance(detail, str) else None
        if kind in ("pay", "fail", "refund", "overpay"):
            event_type = {"pay": "payment.succeeded", "fail": "payment.failed", "refund": "refund.succeeded",
                          "overpay": "payment.succeeded"}[kind]
            self.sent, body, signature = signed_event(payment, event_type,
                                                      payment["refund_owed"] if kind == "refund" else None)
            return client.call("POST", "/payments/webhook", raw_body=body, headers={"Axiom-Signature": signature})
        if kind == "manual":
            self.sent = f"TR-{detail[:8]}"
            return client.call("POST", f"/orders/{detail}/payment", {"status": "succeeded", "reference": self.sent},
                               token=self.admin)
        if kind == "manual_refund":
            self.sent = f"RF-{detail[:8]}-{self.rng.randrange(1 << 30)}"
            return client.call("POST", f"/orders/{detail}/refunds",
                               {"amount": payment["refund_owed"]["amount"], "reference": self.sent}, token=self.admin)
        if kind == "cart" and detail[0] == "PUT":
            return client.call("PUT", f"/cart/items/{detail[1]}", {"quantity": detail[2]}, token=self.token)
        if kind == "cart":
            return client.call("DELETE", f"/cart/items/{detail[1]}", token=self.token)
        if kind == "checkout":
            return client.call("POST", "/checkout", token=self.token, headers={"Idempotency-Key": detail})
        return client.call("POST", f"/orders/{detail}/cancel", token=self.token)


class Registrar(threading.Thread):
    """Registers new customers and signs each in (and a third of them out
    again), until the server dies."""

    def __init__(self, index, port, run_tag, seed, stop):
        super().__init__(daemon=True)
        self.index, self.port, self.run_tag, self.stop = index, port, run_tag, stop
        self.rng = random.Random(seed)
        self.users = []           # acknowledged registrations: (id, email); the id from the sign-in after it
        self.sessions = []        # acknowledged logins, still signed in: (user id, token)
        self.logouts = []         # acknowledged logouts: tokens that must stay revoked
        self.unknown = None       # ("registration" | "login" | "logout", email)
        self.anomalies = []

    def run(self):
        client = Client(self.port)
        for number in range(100000):
            if self.stop.is_set():
                return
            email = f"reg-{self.run_tag}-{self.index}-{number}@example.com"
            kinds = ["registration", "login"] + (["logout"] if self.rng.random() < 1 / 3 else [])
            for kind in kinds:
                try:
                    if kind == "registration":
                        status, payload = client.call("POST", "/users", {"name": f"Reg {number}", "email": email,
                                                                         "password": PASSWORD})
                    elif kind == "login":
                        status, payload = client.call("POST", "/sessions", {"email": email, "password": PASSWORD})
                    else:
                        status, payload = client.call("DELETE", "/sessions/current", token=self.sessions[-1][1])
                except Exception:
                    self.unknown = (kind, email)
                    return
                if status != {"registration": 202, "login": 201, "logout": 204}[kind]:
                    self.unknown = (kind, email)
                    self.anomalies.append(f"{kind} of {email} answered {status}: {payload}")
                    return
                if kind == "registration":
                    # 202 says nothing of the account (the same for a taken
                    # email): its id comes with the sign-in that follows.
                    self.users.append((None, email))
                elif kind == "login":
                    self.users[-1] = (payload["user"]["id"], email)
                    self.sessions.append((payload["user"]["id"], payload["token"]))
                else:
                    self.logouts.append(self.sessions.pop()[1])


# ---------------------------------------------------------------- one run

def setup(client, run_tag, shoppers, seed):
    admin = client.must(201, "POST", "/sessions", {"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})["token"]
    rng = random.Random(seed)
    products = []
    for index, (stock, price) in enumerate(zip(STOCKS, PRICES)):
        products.append(client.must(201, "POST", "/products", {
            "sku": f"CRASH-{run_tag}-{index}", "name": f"Crash product {index}", "description": "scarce",
            "price": {"amount": price, "currency": "USD"}, "stock": stock}, token=admin))
    rng.shuffle(products)
    customers = []

    def make(index):
        own = Client(client.port)
        email = f"shopper-{run_tag}-{index}@example.com"
        own.must(202, "POST", "/users", {"name": f"Shopper {index}", "email": email, "password": PASSWORD})
        token = own.must(201, "POST", "/sessions", {"email": email, "password": PASSWORD})["token"]
        user = own.must(200, "GET", "/users/me", token=token)
        customers.append((index, user, token))

    threads = [threading.Thread(target=make, args=(i,)) for i in range(shoppers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if len(customers) != shoppers:
        raise CheckFailed("could not register every shopper")
    return admin, products, sorted(customers, key=lambda c: c[0])


def check(client, admin_before, products, shoppers, registrars, failures, notes):
    """Everything after the restart. Appends to `failures`; returns counts."""
    lost = {"registration": 0, "login": 0, "logout": 0, "cart": 0, "checkout": 0, "cancel": 0,
            "pay": 0, "fail": 0, "refund": 0, "manual": 0, "money": 0}
    expiries = 0

    # The admin's session from before the crash is a durable write too.
    if client.call("GET", "/users/me", token=admin_before)[0] != 200:
        failures.append("the admin's session from before the kill is gone")
    admin = client.must(201, "POST", "/sessions", {"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})["token"]

    # Registrations and sessions.
    registered = {u["email"]: u for u in client.all_pages("/users", admin)}
    unknown_present = 0
    for registrar in registrars:
        for user_id, email in registrar.users:
            if email not in registered or (user_id is not None and registered[email]["id"] != user_id):
                lost["registration"] += 1
                failures.append(f"registration of {email} ({user_id}) acknowledged, missing after restart")
        for user_id, token in registrar.sessions:
            status, me = client.call("GET", "/users/me", token=token)
            if status != 200 or me.get("id") != user_id:
                lost["login"] += 1
                failures.append(f"session of {user_id} acknowledged, answers {status} after restart")
        for token in registrar.logouts:
            status, _ = client.call("GET", "/users/me", token=token)
            if status != 401:
                lost["logout"] += 1
                failures.append(f"a session signed out before the kill answers {status} after restart")
        if registrar.unknown and registrar.unknown[0] == "registration" and registrar.unknown[1] in registered:
            unknown_present += 1
    # The passwords work too (a few: each costs an argon2id hash).
    sample = [email for r in registrars for _, email in r.users[:1]][:3]
    for email in sample:
        if client.call("POST", "/sessions", {"email": email, "password": PASSWORD})[0] != 201:
            failures.append(f"{email} cannot sign in after restart")

    # Orders, carts, idempotent retries, per customer.
    retries = retried_same = 0
    unknown_checkouts = unknown_orders = 0
    for shopper in shoppers:
        who = shopper.user["email"]
        token = shopper.token
        if client.call("GET", "/users/me", token=token)[0] != 200:
            lost["login"] += 1
            failures.append(f"session of {who} acknowledged, gone after restart")
            continue
        stored = {o["id"]: o for o in client.all_pages("/orders", token)}
        unknown = shopper.unknown
        for order_id, acknowledged in shopper.orders.items():
            order = stored.get(order_id)
            if order is None:
                lost["checkout"] += 1
                failures.append(f"{who}: order {order_id} acknowledged, missing after restart")
                continue
            if lines_of(order) != lines_of(acknowledged) or order["total"] != acknowledged["total"]:
                lost["checkout"] += 1
                failures.append(f"{who}: order {order_id} changed: {order} (acknowledged {acknowledged})")
            # The payment as acknowledged, or where an expiry (of a waiting
            # one) or the request in flight on this order could move it.
            acknowledged_payment = acknowledged["payment"]["status"]
            allowed_payment = {acknowledged_payment}
            if acknowledged_payment == "requires_payment":
                allowed_payment.add("expired")
            if unknown and unknown[0] in IN_FLIGHT_EFFECT and unknown[1] == order_id:
                allowed_payment |= IN_FLIGHT_EFFECT[unknown[0]]
                if acknowledged_payment == "requires_payment":   # a late success after the expiry
                    allowed_payment.add("refund_pending")
            payment_now = (order.get("payment") or {}).get("status")
            if payment_now not in allowed_payment:
                kind = {"succeeded": "pay", "failed": "fail", "refunded": "refund", "refund_pending": "cancel",
                        "cancelled": "cancel"}.get(acknowledged_payment, "checkout")
                lost[kind if acknowledged.get("payment", {}).get("method") != "manual" else "manual"] += 1
                failures.append(f"{who}: order {order_id}'s payment is {payment_now}, expected one of "
                                f"{sorted(allowed_payment)}")
            expiries += payment_now == "expired"
        extra = [o for i, o in stored.items() if i not in shopper.orders]
        unknown_order = None
        if unknown and unknown[0] == "checkout":
            unknown_checkouts += 1
            if len(extra) == 1:
                unknown_order = extra.pop()
                unknown_orders += 1
                ordered = {item["product_id"]: item["quantity"] for item in unknown_order["items"]}
                if ordered != unknown[2]:
                    failures.append(f"{who}: the in-flight checkout's order {unknown_order['id']} has {ordered}, "
                                    f"the cart was {unknown[2]}")
        for order in extra:
            failures.append(f"{who}: order {order['id']} was never placed by this test")
        for order in stored.values():
            payment = order.get("payment") or {}
            if payment.get("status") not in ORDER_FOLLOWS:
                failures.append(f"{who}: order {order['id']} has no payment after start-up reconciliation")
            elif order["status"] != ORDER_FOLLOWS[payment["status"]]:
                failures.append(f"{who}: order {order['id']} is {order['status']} with its payment "
                                f"{payment['status']} after start-up reconciliation")
            if order["status"] == "pending":
                failures.append(f"{who}: order {order['id']} is still pending after its expiry")

        # The cart: exactly what the last acknowledged write left, or what
        # the in-flight write would have made of it.
        cart = cart_of(client.must(200, "GET", "/cart", token=token))
        base = shopper.cart
        acceptable = [base]
        if unknown and unknown[0] == "cart":
            after = dict(base)
            if unknown[1][0] == "PUT":
                after[unknown[1][1]] = unknown[1][2]
            else:
                after.pop(unknown[1][1], None)
            acceptable.append(after)
        elif unknown_order is not None:
            acceptable = [{}]   # its order was placed, so its cart was cleared
        if cart not in acceptable:
            if unknown_order is not None or (shopper.last_kind == "checkout" and not base):
                failures.append(f"{who}: cart holds {cart} after a placed order (expected {acceptable})")
            else:
                lost["cart"] += 1
                failures.append(f"{who}: cart is {cart}, acknowledged {base} (acceptable {acceptable})")

        # A retried checkout with the same key returns the same order; the
        # key answers only its own request, so with the cart now holding
        # something else it is refused (idempotency_key_reused) instead.
        for key, order_id in shopper.keys.items():
            if order_id not in stored:
                continue   # already reported as lost
            retries += 1
            status, again = client.call("POST", "/checkout", token=token, headers={"Idempotency-Key": key})
            ordered = {item["product_id"]: item["quantity"] for item in stored[order_id]["items"]}
            if cart and cart != ordered:
                if status == 422 and again.get("code") == "idempotency_key_reused":
                    retried_same += 1
                else:
                    failures.append(f"{who}: retry of {key} with another cart {cart} answered {status} {again}")
            elif status == 201 and again["id"] == order_id and lines_of(again) == lines_of(stored[order_id]):
                retried_same += 1
            else:
                failures.append(f"{who}: retry of {key} answered {status} {again}, first answer was {order_id}")
        if unknown_order is not None:
            retries += 1
            status, again = client.call("POST", "/checkout", token=token, headers={"Idempotency-Key": unknown[1]})
            if status == 201 and again["id"] == unknown_order["id"]:
                retried_same += 1
            else:
                failures.append(f"{who}: retry of in-flight {unknown[1]} answered {status} {again}, "
                                f"its order is {unknown_order['id']}")

    # The money: acknowledged movements are in the ledger, and every
    # order's ledger sums are its payment's.
    totals = {"entries": 0, "paid": 0, "refunded": 0, "owed": 0, "orders": 0, "flagged": 0}
    for shopper in shoppers:
        for order in client.all_pages("/orders", shopper.token):
            payment = order.get("payment")
            if not payment:
                continue
            entries = client.must(200, "GET", f"/orders/{order['id']}/ledger", token=admin)["items"]
            names = {e["event_id"] for e in entries} | {e["reference"] for e in entries}
            for name in shopper.movements.get(order["id"], []):
                if name not in names:
                    lost["money"] += 1
                    failures.append(f"order {order['id']}: money movement {name} acknowledged, not in its ledger")
            paid = sum(e["amount"]["amount"] for e in entries if e["kind"] in INCOMING)
            refunded = sum(e["amount"]["amount"] for e in entries if e["kind"] not in INCOMING)
            by_admin = sum(e["amount"]["amount"] for e in entries if e["kind"] == "manual_refund")
            kept = payment["amount"]["amount"] if ORDER_FOLLOWS.get(payment["status"]) != "cancelled" else 0
            if paid != payment["paid"]["amount"] or refunded != payment["refunded"]["amount"]:
                failures.append(f"order {order['id']}: ledger sums paid {paid}, refunded {refunded}; payment says "
                                f"{payment['paid']['amount']}, {payment['refunded']['amount']}")
            if by_admin > paid:
                failures.append(f"order {order['id']}: admins refunded {by_admin}, more than the {paid} paid")
            if payment["refund_owed"]["amount"] != max(0, paid - refunded - kept):
                failures.append(f"order {order['id']}: refund_owed {payment['refund_owed']['amount']}, its amounts "
                                f"say {max(0, paid - refunded - kept)}")
            totals["entries"] += len(entries)
            totals["paid"] += paid
            totals["refunded"] += refunded
            totals["owed"] += payment["refund_owed"]["amount"]
            totals["flagged"] += sum(1 for e in entries if e["exceeds_paid"])
            totals["orders"] += 1 if entries else 0
    owed_listed = sum(p["refund_owed"]["amount"] for p in client.all_pages("/payments/refunds-owed", admin))
    if owed_listed != totals["owed"]:
        failures.append(f"GET /payments/refunds-owed lists {owed_listed} owed, the orders say {totals['owed']}")
    notes.update(ledger=totals)

    # Stock and orders agree (read after the retries, which may not change either).
    ordered_units = {p["id"]: 0 for p in products}
    for shopper in shoppers:
        for order in client.all_pages("/orders", shopper.token):
            if order["status"] != "cancelled":
                for item in order["items"]:
                    ordered_units[item["product_id"]] += item["quantity"]
    agree = sold_out = 0
    for product in products:
        now = client.must(200, "GET", f"/products/{product['id']}")["stock"]
        expected = product["stock"] - ordered_units[product["id"]]
        if now == expected and now >= 0:
            agree += 1
        else:
            failures.append(f"product {product['sku']}: stock {now}, initial {product['stock']} - ordered "
                            f"{ordered_units[product['id']]} = {expected}")
        sold_out += now == 0
    notes.update(expiries=expiries, unknown_present=unknown_present, retries=retries, retried_same=retried_same, agree=agree,
                 sold_out=sold_out, unknown_checkouts=unknown_checkouts, unknown_orders=unknown_orders)
    return lost


def run(args):
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
    rng = random.Random(seed)
    work = tempfile.mkdtemp(prefix="axiom-crash-")
    database = os.path.join(work, "axiom.db")
    run_tag = f"{args.run}-{seed}"
    database_url = fresh_schema(args.database_url, f"crash_{args.run}_{seed}") if args.database_url else None
    sink = mail_check.MailSink(os.path.join(work, "mail")) if args.mail else None
    server = Server(args.binary, database, os.path.join(work, "server.log"), database_url,
                    sink.server_args() if sink else ())
    failures, notes = [], {}
    try:
        server.start()
        client = Client(server.port)
        admin, products, customers = setup(client, run_tag, args.shoppers, seed)
        stop = threading.Event()
        shoppers = [Shopper(i, server.port, user, token, products, rng.randrange(1 << 30), stop, admin)
                    for i, user, token in customers]
        registrars = [Registrar(i, server.port, run_tag, rng.randrange(1 << 30), stop) for i in range(args.registrars)]
        for thread in shoppers + registrars:
            thread.start()
        kill_after = rng.uniform(1.0, 4.0)
        time.sleep(kill_after)
        server.kill9()
        stop.set()
        for thread in shoppers + registrars:
            thread.join(timeout=60)
            if thread.is_alive():
                raise CheckFailed("a writer did not notice the kill within 60 s")
        if server.process.returncode != -signal.SIGKILL:
            failures.append(f"server ended with {server.process.returncode}, not SIGKILL")
        for thread in shoppers + registrars:
            failures += thread.anomalies

        server.start()
        client = Client(server.port)
        # Every order still unpaid expires within PAYMENT_TIMEOUT of its
        # checkout, which was before the kill: past that, plus the sweep's
        # half second, none may be pending.
        time.sleep(PAYMENT_TIMEOUT + 1.5)
        lost = check(client, admin, products, shoppers, registrars, failures, notes)
        if sink:
            admin_now = client.must(201, "POST", "/sessions", {"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})["token"]
            notes["mail"] = mail_check.check(client, admin_now, sink, client.all_pages("/admin/orders", admin_now),
                                             failures)
        status = server.stop()
        if status != 0:
            failures.append(f"restarted server exited with {status} on SIGTERM")
    except CheckFailed as error:
        failures.append(str(error))
        server.stop()
        if sink:
            sink.stop()
        print(f"run {args.run} (seed {seed}): FAILED before the checks: {error}\n  kept {work}")
        return 1
    except BaseException:
        server.stop()
        if sink:
            sink.stop()
        raise
    if sink:
        sink.stop()

    in_flight = sum(1 for t in shoppers + registrars if t.unknown)
    kinds = {}
    for thread in shoppers + registrars:
        if thread.unknown:
            kinds[thread.unknown[0]] = kinds.get(thread.unknown[0], 0) + 1
    repaired = server.reconciliation()
    registrations = len(customers) + sum(len(r.users) for r in registrars)
    logouts = sum(len(r.logouts) for r in registrars)
    logins = len(customers) + sum(len(r.sessions) for r in registrars) + logouts
    count = lambda kind: sum(s.acknowledged[kind] for s in shoppers)
    print(f"run {args.run} (seed {seed}): kill -9 after {kill_after:.2f} s, {in_flight} requests in flight "
          f"({', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))}); start-up reconciliation: {repaired}")
    print(f"  registrations  acknowledged {registrations:5d}, lost {lost['registration']}"
          f"   (in flight {sum(1 for r in registrars if r.unknown and r.unknown[0] == 'registration')}, "
          f"present {notes['unknown_present']})")
    print(f"  logins         acknowledged {logins:5d}, lost {lost['login']}")
    print(f"  logouts        acknowledged {logouts:5d}, lost {lost['logout']}")
    print(f"  cart writes    acknowledged {count('cart'):5d}, lost {lost['cart']}")
    print(f"  checkouts      acknowledged {count('checkout'):5d}, lost {lost['checkout']}"
          f"   (refused insufficient_stock {sum(s.refused for s in shoppers)}, "
          f"too_many_unpaid {sum(s.unpaid_refusals for s in shoppers)}; "
          f"in flight {notes['unknown_checkouts']}, present {notes['unknown_orders']})")
    print(f"  cancellations  acknowledged {count('cancel'):5d}, lost {lost['cancel']}")
    print(f"  payments       succeeded {count('pay'):4d}, failed {count('fail'):4d}, refunds {count('refund'):4d}, "
          f"manual {count('manual'):4d} acknowledged; lost {lost['pay'] + lost['fail'] + lost['refund'] + lost['manual']}"
          f"   (expired {notes['expiries']}; refused after an expiry {sum(s.payment_refusals for s in shoppers)})")
    ledger = notes["ledger"]
    print(f"  ledger         {ledger['entries']:5d} entries on {ledger['orders']} orders: paid {ledger['paid']}, refunded "
          f"{ledger['refunded']}, owed back {ledger['owed']} (second payments {count('overpay')}, manual refunds "
          f"{count('manual_refund')}, flagged {ledger['flagged']}); movements lost {lost['money']}, "
          f"sums = payment on every order")
    print(f"  stock = initial - ordered on {notes['agree']}/{len(products)} products ({notes['sold_out']} sold out); "
          f"idempotent retries {notes['retried_same']}/{notes['retries']} same order")
    if sink:
        mail = notes["mail"]
        print(f"  mail           {mail['mails']:5d} mails for {mail['orders']} orders ({mail['resent']} sent again under "
              f"their Message-ID, {mail['rolled_back']} rolled-back checkouts mailed nothing); {mail['jobs']} jobs "
              f"ended, {mail['dead']} dead, {mail['deferred']} retried after a 451 or a kill")
    if failures:
        print(f"  FAILED ({len(failures)}):")
        for failure in failures[:40]:
            print(f"    - {failure}")
        print(f"  kept {work} (database and server.log)")
        return 1
    print("  OK")
    subprocess.run(["rm", "-rf", work], check=False)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=".build/release/axiom-server")
    parser.add_argument("--run", type=int, default=1, help="run number, for the output")
    parser.add_argument("--seed", type=int, help="replay a run's random choices (the kill moment stays wall-clock)")
    parser.add_argument("--shoppers", type=int, default=12, help="customer threads (cart writes, checkouts)")
    parser.add_argument("--registrars", type=int, default=3, help="registration + login threads")
    parser.add_argument("--database-url", help="run the server on PostgreSQL: a fresh schema of this server per run")
    parser.add_argument("--mail", action="store_true",
                        help="mail on, through a real SMTP server (scripts/mail_check.py checks what it got)")
    sys.exit(run(parser.parse_args()))


if __name__ == "__main__":
    main()
