#!/usr/bin/env python3
"""The webhook receiver and its checks, proved without the server: a small
sender that signs with the `standardwebhooks` library itself delivers to a
real scripts/webhook_receiver.py over HTTPS, and each behaviour, each
verification outcome and each check of scripts/webhook_check.py (passing
and failing) is looked at. Prints one line per case and "N passed, N
failed"; exits 0 when all passed.

    python3 scripts/webhook_selfcheck.py
"""
import base64
import datetime
import http.client
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from axiom_client import CheckFailed  # noqa: E402
from standardwebhooks import Webhook  # noqa: E402
import webhook_check  # noqa: E402


def new_secret():
    return "whsec_" + base64.b64encode(os.urandom(32)).decode()


def message_id():
    return "msg_" + uuid.uuid4().hex


class Sender:
    """A Standard Webhooks sender on one keep-alive HTTPS connection."""

    def __init__(self, receiver, timeout=5.0):
        self.receiver = receiver
        self.timeout = timeout
        self.connection = None

    def send(self, name, secrets, kind="order.created", data=None, webhook_id=None, at=None, tamper=False):
        """Signs the body with each of `secrets`; the status answered, or the
        exception the connection ended with."""
        webhook_id = webhook_id or message_id()
        at = at or datetime.datetime.now(tz=datetime.timezone.utc)
        body = json.dumps({"type": kind, "timestamp": at.isoformat(),
                           "data": data or {"id": str(uuid.uuid4()), "version": 1}})
        signatures = " ".join(Webhook(secret).sign(webhook_id, at, body) for secret in secrets)
        if tamper:
            body = body.replace('"version": 1', '"version": 2')
        headers = {"webhook-id": webhook_id, "webhook-timestamp": str(int(at.timestamp())),
                   "webhook-signature": signatures, "Content-Type": "application/json"}
        if self.connection is None:
            context = ssl.create_default_context(cafile=self.receiver.ca)
            self.connection = http.client.HTTPSConnection("localhost", self.receiver.port, context=context,
                                                          timeout=self.timeout)
        try:
            self.connection.request("POST", f"/hooks/{name}", body=body, headers=headers)
            answer = self.connection.getresponse()
            answer.read()
            if answer.getheader("Connection", "").lower() == "close":
                self.close()
            return answer.status, answer.getheader("Retry-After")
        except (OSError, http.client.HTTPException) as error:
            self.close()
            return error, None

    def close(self):
        if self.connection is not None:
            self.connection.close()
            self.connection = None


def last(receiver, count=1):
    deliveries = receiver.deliveries()
    return deliveries[-count:] if count > 1 else deliveries[-1]


def expect(condition, what):
    if not condition:
        raise CheckFailed(what)


def case_verified(receiver, sender):
    secret = new_secret()
    receiver.register("ok", [secret], "ok")
    first = sender.send("ok", [secret])
    second = sender.send("ok", [secret], kind="order.paid")
    one, two = last(receiver, 2)
    expect(first == (204, None) and second == (204, None), f"answers {first} {second}")
    expect(one["verified"] and two["verified"] and one["matched"] == [0], f"records {one} {two}")
    expect(one["connection"] == two["connection"], "two deliveries on one kept connection were two connections")
    expect(two["type"] == "order.paid" and two["version"] == 1 and two["data_id"], f"record fields {two}")
    return "two deliveries verified, answered 204 on one kept-alive connection"


def case_rotation(receiver, sender):
    old, new = new_secret(), new_secret()
    receiver.register("rotating", [new, old], "ok")
    both = sender.send("rotating", [new, old])
    record = last(receiver)
    expect(both[0] == 204 and record["signatures"] == 2 and record["matched"] == [0, 1], f"both: {both} {record}")
    only_old = sender.send("rotating", [old])
    record = last(receiver)
    expect(only_old[0] == 204 and record["matched"] == [1], f"old only: {only_old} {record}")
    stranger = sender.send("rotating", [new_secret()])
    expect(stranger[0] == 400 and not last(receiver)["verified"], f"a third secret: {stranger}")
    return "two signatures (new, old) each matched to its secret; the old alone verifies; another refused 400"


def case_refused(receiver, sender):
    secret = new_secret()
    receiver.register("strict", [secret], "ok")
    tampered = sender.send("strict", [secret], tamper=True)
    record = last(receiver)
    expect(tampered[0] == 400 and not record["verified"] and "signature" in record["error"],
           f"tampered body: {tampered} {record}")
    stale = datetime.datetime.now(tz=datetime.timezone.utc) - datetime.timedelta(minutes=10)
    old = sender.send("strict", [secret], at=stale)
    record = last(receiver)
    expect(old[0] == 400 and "too old" in record["error"], f"stale timestamp: {old} {record}")
    unknown = sender.send("nobody-registered", [secret])
    expect(unknown[0] == 404 and last(receiver)["answer"] == "404", f"unknown endpoint: {unknown}")
    return "a changed body, a timestamp 10 min old (the library's tolerance) and an unknown endpoint refused"


def case_fixed_behaviours(receiver, sender):
    secret = new_secret()
    seen = {}
    for behaviour in ("gone", "fail", {"kind": "slow", "seconds": 0.3}):
        name = behaviour if isinstance(behaviour, str) else behaviour["kind"]
        receiver.register(name, [secret], behaviour)
        started = time.monotonic()
        seen[name] = (sender.send(name, [secret])[0], time.monotonic() - started)
    expect(seen["gone"][0] == 410 and seen["fail"][0] == 500 and seen["slow"][0] == 204, f"answers {seen}")
    expect(seen["slow"][1] >= 0.3, f"slow answered after {seen['slow'][1]:.2f} s")
    return f"gone 410, fail 500, slow 204 (after {seen['slow'][1]:.2f} s)"


def case_random(receiver, sender):
    """Every failure kind is seen as the sender sees it, and one id fails
    at most max_failures times in a row."""
    secret = new_secret()
    receiver.register("random", [secret], {"kind": "random", "seed": 7, "share": 1.0, "stall": 1.5,
                                           "max_failures": 2})
    quick = Sender(receiver, timeout=0.5)
    observed = {}
    for _ in range(12):
        webhook_id = message_id()
        answers = [quick.send("random", [secret], webhook_id=webhook_id)[0] for _ in range(3)]
        expect(answers[2] == 204, f"the third attempt of one id was {answers[2]} (max_failures 2)")
        records = [d for d in receiver.deliveries() if d["webhook_id"] == webhook_id]
        expect([r["attempt"] for r in records] == [1, 2, 3], f"attempts {[r['attempt'] for r in records]}")
        for record, answer in zip(records[:2], answers[:2]):
            observed.setdefault(record["answer"], set()).add(type(answer).__name__ if isinstance(answer, Exception)
                                                             else answer)
    quick.close()
    expect(observed.get("500") == {500} and observed.get("429") == {429}, f"observed {observed}")
    expect(observed.get("timeout", set()) <= {"TimeoutError", "timeout"} and observed.get("timeout"),
           f"timeouts observed as {observed.get('timeout')}")
    expect(observed.get("reset") and observed["reset"] <= {"ConnectionResetError", "RemoteDisconnected",
                                                          "SSLEOFError", "SSLZeroReturnError", "BrokenPipeError"},
           f"resets observed as {observed.get('reset')}")
    status, retry_after = None, None
    receiver.register("throttled", [secret], {"kind": "random", "seed": 1, "share": 1.0, "max_failures": 99})
    for _ in range(20):
        status, retry_after = sender.send("throttled", [secret])
        if status == 429:
            break
    expect(status == 429 and retry_after == "1", f"429 came with Retry-After {retry_after}")
    return "500, 429 (Retry-After: 1), a timeout and a reset each seen by the sender; an id's third attempt 204"


def case_file(receiver, sender):
    secret = new_secret()
    path = os.path.join(receiver.directory, "endpoints.json")
    with open(path + ".tmp", "w") as out:
        json.dump({"from-file": {"secrets": [secret], "behaviour": "ok"}}, out)
    os.replace(path + ".tmp", path)
    answer = sender.send("from-file", [secret])
    expect(answer[0] == 204 and last(receiver)["verified"], f"endpoint from the file: {answer}")
    rotated = new_secret()
    with open(path + ".tmp", "w") as out:
        json.dump({"from-file": {"secrets": [rotated], "behaviour": "ok"}}, out)
    os.replace(path + ".tmp", path)
    answers = sender.send("from-file", [rotated])[0], sender.send("from-file", [secret])[0]
    expect(answers == (204, 400), f"after the file changed: {answers}")
    return "an endpoint from endpoints.json, and its secret changed by rewriting the file"


def case_checks(receiver, sender):
    """webhook_check.check passes a clean run and names each kind of fault."""
    secrets = {name: new_secret() for name in ("a", "b", "g")}
    for name, behaviour in (("a", "ok"), ("b", {"kind": "random", "seed": 3, "share": 0.5, "max_failures": 2}),
                            ("g", "gone")):
        receiver.register(f"check-{name}", [secrets[name]], behaviour)
    registered = time.time()
    subscriptions = [webhook_check.Subscription("check-a", "A", registered, "enabled"),
                     webhook_check.Subscription("check-b", "B", registered, "enabled"),
                     webhook_check.Subscription("check-g", "G", registered, "gone")]
    time.sleep(0.01)
    orders = [{"id": str(uuid.uuid4()), "created_at": time.time(), "paid": n % 2 == 0, "rolled_back": False}
              for n in range(6)]
    rolled = {"id": str(uuid.uuid4()), "created_at": time.time(), "paid": False, "rolled_back": True}
    quick = Sender(receiver, timeout=0.5)
    for order in orders:
        for kind in ("order.created",) + (("order.paid",) if order["paid"] else ()):
            webhook_id = message_id()
            for name in ("a", "b", "g"):
                for _ in range(4):  # retried like the server would, under one id
                    if quick.send(f"check-{name}", [secrets[name]], kind, {"id": order["id"], "version": 1},
                                  webhook_id=webhook_id)[0] in (204, 410):
                        break
    quick.close()
    states = {"A": {"status": "enabled"}, "B": {"status": "enabled"},
              "G": {"status": "disabled", "disabled_reason": "gone"}}
    clean = []
    counts = webhook_check.check(receiver.deliveries(), subscriptions, states, orders + [rolled], clean)
    expect(not clean, f"a clean run failed: {clean}")
    expect(counts["orders"] == 6 and counts["rolled_back"] == 1 and counts["missing"] == 0, f"counts {counts}")

    def faults(deliveries, states=states, orders=orders + [rolled]):
        found = []
        webhook_check.check(deliveries, subscriptions, states, orders, found)
        return found

    base = receiver.deliveries()
    dropped = [d for d in base if not (d["endpoint"] == "check-b" and d["data_id"] == orders[0]["id"])]
    expect(any("never reached check-b" in f for f in faults(dropped)), "a missing delivery went unnoticed")
    twice = dict(next(d for d in base if d["endpoint"] == "check-a"), webhook_id=message_id())
    expect(any("webhook-ids" in f for f in faults(base + [twice])), "one event under two ids went unnoticed")
    announced = dict(base[-1], data_id=rolled["id"])
    expect(any("rolled-back" in f for f in faults(base + [announced])), "a rolled-back order's event went unnoticed")
    forged = dict(base[-1], verified=False, error="No matching signature found", received_at=time.time())
    expect(any("verification" in f for f in faults(base + [forged])), "an unverified delivery went unnoticed")
    still = dict(states, G={"status": "enabled"})
    expect(any("expected disabled" in f for f in faults(base, states=still)), "a 410 endpoint left enabled")
    return (f"a clean run passes ({counts['verified']} verified, {counts['repeats']} repeats); a missing delivery, "
            "two ids for one event, a rolled-back order announced, a forged signature, a 410 left enabled: each fails")


def case_bounded(_receiver, _sender):
    directory = tempfile.mkdtemp(prefix="axiom-webhook-bound-")
    try:
        script = os.path.join(webhook_check.ROOT, "scripts", "webhook_receiver.py")
        by_signal = subprocess.Popen([sys.executable, script, "--dir", directory], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, text=True)
        port = json.loads(by_signal.stdout.readline())["port"]
        with open(os.path.join(directory, "port")) as source:
            expect(int(source.read()) == port, "the port file and the ready line disagree")
        by_signal.send_signal(signal.SIGTERM)
        code = by_signal.wait(timeout=10)
        expect(code == 0, f"SIGTERM: exit {code}")
        by_stdin = webhook_check.WebhookReceiver(os.path.join(directory, "stdin"), tls="none")
        with socket.create_connection(("127.0.0.1", by_stdin.port), timeout=5):
            pass
        by_stdin.process.stdin.close()
        code = by_stdin.process.wait(timeout=10)
        expect(code == 0, f"stdin closed: exit {code}")
        orphan_dir = os.path.join(directory, "orphan")
        os.makedirs(orphan_dir)
        parent = subprocess.Popen(["sh", "-c", f'"{sys.executable}" "{script}" --dir "{orphan_dir}" '
                                   '>/dev/null 2>&1 </dev/null & echo $!; exec sleep 60'],
                                  stdout=subprocess.PIPE, text=True)
        orphan = int(parent.stdout.readline())
        for _ in range(100):
            if os.path.exists(os.path.join(orphan_dir, "port")):
                break
            time.sleep(0.1)
        parent.kill()
        parent.wait()
        for _ in range(100):
            if not os.path.exists(f"/proc/{orphan}") or open(f"/proc/{orphan}/stat").read().split()[2] == "Z":
                break
            time.sleep(0.1)
        else:
            os.kill(orphan, signal.SIGKILL)
            raise CheckFailed("the receiver outlived its parent by 10 s")
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    return "exits on SIGTERM, when its stdin closes and when its parent dies; --port 0 writes the port it took"


CASES = [case_verified, case_rotation, case_refused, case_fixed_behaviours, case_random, case_file, case_checks,
         case_bounded]


def main():
    directory = tempfile.mkdtemp(prefix="axiom-webhook-selfcheck-")
    receiver = webhook_check.WebhookReceiver(directory, lifetime=300)
    sender = Sender(receiver)
    failed = 0
    try:
        for case in CASES:
            name = case.__name__[len("case_"):]
            try:
                print(f"PASS {name}: {case(receiver, sender)}", flush=True)
            except (CheckFailed, Exception) as failure:
                failed += 1
                print(f"FAIL {name}: {type(failure).__name__}: {failure}", flush=True)
    finally:
        sender.close()
        receiver.stop()
        shutil.rmtree(directory, ignore_errors=True)
    print(f"{len(CASES) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
