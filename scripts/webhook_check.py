"""Webhooks on, for the cluster test: a real receiver
(scripts/webhook_receiver.py: HTTPS on a CA it makes, every delivery
verified with the `standardwebhooks` reference library), the endpoints a
run registers on the server and the receiver alike, and the at-least-once
checks once the job queue has drained:

- every order.created, and for a paid order every order.paid, of every
  committed order reached every enabled endpoint verified and answered 2xx
  at least once (the order made after the endpoint existed);
- nothing at all for a checkout rolled back (the order the system
  cancelled because its stock was sold meanwhile);
- a delivery sent more than once kept its webhook-id: one (endpoint,
  order, type) under two ids is a failure, and so is one id on two events;
- no delivery failed verification once its endpoint's secret was known;
- an endpoint that answered 410 is disabled with reason "gone", the others
  are still enabled.

Python 3 standard library, besides what the receiver imports.
"""
import json
import os
import ssl
import subprocess
import sys
import time
import http.client

from axiom_client import CheckFailed

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WEBHOOK_KINDS = ("webhook.event", "webhook.delivery")
# Types an order has at most once: two webhook-ids for one of them is an
# event made twice, not a delivery repeated.
ONCE_PER_SUBJECT = ("order.created", "order.paid", "order.shipped", "order.cancelled", "customer.created",
                    "product.created")


class WebhookLog:
    """What a receiver (scripts/webhook_receiver.py) recorded in `directory`."""

    def __init__(self, directory):
        self.directory = directory

    def deliveries(self):
        """Every request recorded, in the order received (a line still being
        written is left for the next read)."""
        path = os.path.join(self.directory, "deliveries.jsonl")
        if not os.path.exists(path):
            return []
        with open(path, "rb") as source:
            data = source.read()
        return [json.loads(line) for line in data.split(b"\n")[:-1] if line]


class WebhookReceiver(WebhookLog):
    """The receiver in `directory`: started here, or (`started=False`) the
    one already running there, found by its port file."""

    def __init__(self, directory, tls="trustme", lifetime=3600, started=True):
        super().__init__(directory)
        os.makedirs(directory, exist_ok=True)
        self.process = None
        if started:
            self.process = subprocess.Popen(
                [sys.executable, os.path.join(ROOT, "scripts", "webhook_receiver.py"), "--dir", directory,
                 "--tls", tls, "--lifetime", str(lifetime)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            first = self.process.stdout.readline()
            if not first:
                raise CheckFailed("the webhook receiver did not start (trustme and standardwebhooks installed? "
                                  "scripts/setup.sh --tests)")
            self.port = json.loads(first)["port"]
        else:
            with open(os.path.join(directory, "port")) as source:
                self.port = int(source.read())
        self.ca = os.path.join(directory, "ca.pem") if tls != "none" else None
        self.connection = None

    def url(self, name, host="localhost"):
        return f"{'https' if self.ca else 'http'}://{host}:{self.port}/hooks/{name}"

    def control(self, method, path, body=None):
        if self.connection is None:
            if self.ca:
                context = ssl.create_default_context(cafile=self.ca)
                self.connection = http.client.HTTPSConnection("localhost", self.port, context=context, timeout=10)
            else:
                self.connection = http.client.HTTPConnection("localhost", self.port, timeout=10)
        try:
            self.connection.request(method, path, body=json.dumps(body) if body is not None else None,
                                    headers={"Content-Type": "application/json"})
            answer = self.connection.getresponse()
            raw = answer.read()
        except Exception:
            self.connection.close()
            self.connection = None
            raise
        return answer.status, json.loads(raw) if raw else None

    def register(self, name, secrets, behaviour="ok"):
        """The endpoint's secrets (newest first) and what it answers."""
        status, payload = self.control("PUT", f"/_control/endpoints/{name}",
                                       {"secrets": secrets, "behaviour": behaviour})
        if status != 204:
            raise CheckFailed(f"the receiver refused endpoint {name}: {status} {payload}")

    def stop(self):
        if self.connection is not None:
            self.connection.close()
        if self.process is not None and self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class Subscription:
    """An endpoint made on the server for a receiver's path: its id, its
    name there, when it existed, and what it should end as."""

    def __init__(self, name, webhook_id, registered_at, expect):
        self.name, self.id, self.registered_at, self.expect = name, webhook_id, registered_at, expect


def subscribe(client, admin, receiver, name, behaviour, expect="enabled", event_types=None):
    """POST /admin/webhooks for the receiver's `name`, then its secret to
    the receiver. `expect` is "enabled" or the reason it ends disabled."""
    body = {"url": receiver.url(name), "description": f"cluster test {name}"}
    if event_types:
        body["event_types"] = list(event_types)
    created = client.must(201, "POST", "/admin/webhooks", body, token=admin)
    receiver.register(name, [created["secret"]], behaviour)
    return Subscription(name, created["id"], time.time(), expect)


def jobs(client, admin, kind, state=None):
    query = f"/admin/jobs?kind={kind}" + (f"&state={state}" if state else "")
    return client.all_pages(query, admin)


def wait_drained(client, admin, timeout=120):
    """Until no webhook job is queued or running; every webhook job."""
    deadline = time.monotonic() + timeout
    while True:
        waiting = [job for kind in WEBHOOK_KINDS for state in ("queued", "running")
                   for job in jobs(client, admin, kind, state)]
        if not waiting:
            return [job for kind in WEBHOOK_KINDS for job in jobs(client, admin, kind)]
        if time.monotonic() > deadline:
            raise CheckFailed(f"{len(waiting)} webhook jobs still queued or running after {timeout} s: "
                              f"{[(j['id'], j['kind'], j['state'], j['last_error']) for j in waiting[:5]]}")
        time.sleep(0.5)


def check(deliveries, subscriptions, states, orders, failures):
    """The checks above. `deliveries`: the receiver's records;
    `subscriptions`: the run's endpoints; `states`: the server's view of
    each (GET /admin/webhooks/{id}) by id; `orders`: every order, each
    {"id", "created_at" (seconds since 1970), "paid", "rolled_back"}.
    Appends to `failures`; returns counts for the report."""
    by_name = {s.name: s for s in subscriptions}
    mine = [d for d in deliveries if d.get("endpoint") in by_name]
    for subscription in subscriptions:
        state = states.get(subscription.id) or {}
        if subscription.expect == "enabled":
            if state.get("status") != "enabled":
                failures.append(f"endpoint {subscription.name} is {state.get('status')} "
                                f"({state.get('disabled_reason')}), expected enabled")
        elif state.get("status") != "disabled" or state.get("disabled_reason") != subscription.expect:
            failures.append(f"endpoint {subscription.name} is {state.get('status')} ({state.get('disabled_reason')}),"
                            f" expected disabled ({subscription.expect})")
    unverified = [d for d in mine if not d.get("verified")
                  and d["received_at"] > by_name[d["endpoint"]].registered_at]
    for delivery in unverified[:5]:
        failures.append(f"a delivery to {delivery['endpoint']} failed verification: {delivery.get('error')} "
                        f"({delivery.get('webhook_id')}, {delivery.get('type')})")
    verified = [d for d in mine if d.get("verified")]
    events = {}
    ids = {}
    for delivery in verified:
        subject = (delivery.get("type"), delivery.get("data_id"))
        if ids.setdefault(delivery["webhook_id"], subject) != subject:
            failures.append(f"webhook-id {delivery['webhook_id']} is on two events: {ids[delivery['webhook_id']]} "
                            f"and {subject}")
        events.setdefault((delivery["endpoint"],) + subject, set()).add(delivery["webhook_id"])
    for (endpoint, kind, subject), webhook_ids in events.items():
        if kind in ONCE_PER_SUBJECT and len(webhook_ids) > 1:
            failures.append(f"{kind} of {subject} reached {endpoint} under {len(webhook_ids)} webhook-ids")
    accepted = {(d["endpoint"], d.get("type"), d.get("data_id")) for d in verified if d["answer"].startswith("2")}
    enabled = [s for s in subscriptions if s.expect == "enabled"]
    missing = []
    checked = rolled_back = paid = 0
    for order in orders:
        if order["rolled_back"]:
            rolled_back += 1
            told = sorted({(d["endpoint"], d.get("type")) for d in mine if d.get("data_id") == order["id"]})
            if told:
                failures.append(f"rolled-back order {order['id']} was announced: {told[:3]}")
            continue
        checked += 1
        paid += bool(order["paid"])
        for subscription in enabled:
            if order["created_at"] <= subscription.registered_at:
                continue
            for kind in ("order.created",) + (("order.paid",) if order["paid"] else ()):
                if (subscription.name, kind, order["id"]) not in accepted:
                    missing.append(f"{kind} of order {order['id']} never reached {subscription.name}")
    failures.extend(missing[:10])
    if len(missing) > 10:
        failures.append(f"... {len(missing)} deliveries missing in all")
    answers = {}
    for delivery in mine:
        answers[delivery["answer"]] = answers.get(delivery["answer"], 0) + 1
    first = {(d["endpoint"], d["webhook_id"]) for d in verified}
    return {"requests": len(mine), "verified": len(verified), "events": len(events), "orders": checked,
            "paid": paid, "rolled_back": rolled_back, "missing": len(missing), "answers": answers,
            "repeats": len(verified) - len(first), "unverified": len(unverified)}
