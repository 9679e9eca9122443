"""Mail on, for the crash test and the cluster test: a real SMTP server
(scripts/smtp_sink.py: aiosmtpd with STARTTLS on a CA it makes, and the
first few messages refused with 451 so the retries are exercised), the
server settings that send through it, and the checks once the job queue
has drained:

- every order has its mails and only its own: "placed" for every order
  whose checkout finished, and for a cancelled one "placed" and
  "cancelled" together or neither (a checkout rolled back after its order
  was written, the stock sold meanwhile); no mail names an order that
  does not exist;
- a mail sent more than once (a kill between the send and its record, a
  lease taken over) keeps its Message-ID, and two mails never share one;
- every mail job ended succeeded or dead with its reason, none left queued
  or running.

Python 3 standard library, besides the sink's aiosmtpd and trustme.
"""
import email
import email.policy
import glob
import json
import os
import re
import subprocess
import sys
import time

from axiom_client import CheckFailed

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAIL_KINDS = ("order.mail", "payment.mail")
SUBJECT_ORDER = re.compile(r"\b([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b")


class MailBox:
    """What an SMTP sink (scripts/smtp_sink.py) accepted into `directory`."""

    def __init__(self, directory):
        self.directory = directory

    def messages(self):
        """Every accepted message: subject, Message-ID, recipients."""
        found = []
        for path in sorted(glob.glob(os.path.join(self.directory, "*.eml"))):
            with open(path, "rb") as source:
                message = email.message_from_bytes(source.read(), policy=email.policy.SMTPUTF8)
            found.append({"subject": str(message["Subject"]), "message_id": message["Message-ID"],
                          "to": str(message["To"])})
        return found


class MailSink(MailBox):
    """scripts/smtp_sink.py in `directory`, until `stop`."""

    def __init__(self, directory, defer=5, lifetime=3600):
        super().__init__(directory)
        os.makedirs(directory, exist_ok=True)
        self.process = subprocess.Popen(
            [sys.executable, os.path.join(ROOT, "scripts", "smtp_sink.py"), "--dir", directory, "--tls", "starttls",
             "--cert-host", "localhost", "--defer", str(defer), "--lifetime", str(lifetime)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        first = self.process.stdout.readline()
        if not first:
            raise CheckFailed("the SMTP sink did not start (aiosmtpd and trustme installed? scripts/setup.sh --tests)")
        started = json.loads(first)
        self.port, self.ca = started["port"], started["ca"]

    def server_args(self):
        """The settings that send the server's mail here."""
        return ["--smtp-host", "localhost", "--smtp-port", str(self.port), "--smtp-tls", "starttls",
                "--smtp-ca-file", self.ca, "--mail-from", "shop@axiom.test",
                "--mail-templates", os.path.join(ROOT, "config", "mail"),
                # A killed process's jobs are taken over within seconds.
                "--jobs-lease", "5"]

    def stop(self):
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def jobs(client, admin, kind, state=None):
    query = f"/admin/jobs?kind={kind}" + (f"&state={state}" if state else "")
    return client.all_pages(query, admin)


def wait_drained(client, admin, timeout=180):
    """Until no mail job is queued or running; the jobs of each kind."""
    deadline = time.monotonic() + timeout
    while True:
        waiting = [job for kind in MAIL_KINDS for state in ("queued", "running")
                   for job in jobs(client, admin, kind, state)]
        if not waiting:
            return {kind: jobs(client, admin, kind) for kind in MAIL_KINDS}
        if time.monotonic() > deadline:
            raise CheckFailed(f"{len(waiting)} mail jobs still queued or running after {timeout} s: "
                              f"{[(j['id'], j['kind'], j['state'], j['last_error']) for j in waiting[:5]]}")
        time.sleep(0.5)


def check(client, admin, box, orders, failures):
    """The checks above over `orders` (every order, as admins list them)
    and what `box` received; appends to `failures`, returns counts for the
    report."""
    by_kind = wait_drained(client, admin)
    all_jobs = [job for kind in MAIL_KINDS for job in by_kind[kind]]
    dead = [job for job in all_jobs if job["state"] == "dead"]
    for job in all_jobs:
        if job["state"] not in ("succeeded", "dead"):
            failures.append(f"mail job {job['id']} ended {job['state']}")
        if job["state"] == "dead" and not job.get("last_error"):
            failures.append(f"mail job {job['id']} is dead without a reason")
    known = {order["id"]: order for order in orders}
    sent = {}
    ids_by_mail = {}
    for message in box.messages():
        match = SUBJECT_ORDER.search(message["subject"])
        if not match:
            failures.append(f"a mail names no order: {message['subject']!r}")
            continue
        order = match.group(1)
        if order not in known:
            failures.append(f"a mail names order {order}, which does not exist: {message['subject']!r}")
        kind = message["subject"].replace(order, "{id}")
        sent.setdefault(order, set()).add(kind)
        ids_by_mail.setdefault((order, kind), set()).add(message["message_id"])
    placed_subject = "Your order {id} at Axiom Shop"
    cancelled_subject = "Your order {id} was cancelled"
    # An order is placed, shipped and cancelled once: each of those mails
    # is one job (payments may be received and refunded several times).
    for (order, kind), ids in ids_by_mail.items():
        if kind in (placed_subject, cancelled_subject, "Your order {id} has shipped") and len(ids) > 1:
            failures.append(f"order {order}'s mail {kind!r} went out under {len(ids)} Message-IDs")
    owners = {}
    for (order, kind), ids in ids_by_mail.items():
        for message_id in ids:
            if message_id in owners and owners[message_id] != (order, kind):
                failures.append(f"Message-ID {message_id} is on two mails")
            owners[message_id] = (order, kind)
    total = len(box.messages())
    duplicates = total - len(owners)
    rolled_back = 0
    for order in orders:
        kinds = sent.get(order["id"], set())
        if order["status"] != "cancelled":
            if placed_subject not in kinds:
                failures.append(f"order {order['id']} ({order['status']}) has no 'placed' mail")
        elif (placed_subject in kinds) != (cancelled_subject in kinds):
            failures.append(f"cancelled order {order['id']} has {'placed' if placed_subject in kinds else 'cancelled'}"
                            " mail without the other")
        elif placed_subject not in kinds:
            rolled_back += 1
    return {"mails": total, "resent": duplicates, "orders": len(orders), "rolled_back": rolled_back,
            "jobs": len(all_jobs), "dead": len(dead),
            "deferred": sum(1 for job in all_jobs if job["attempts"] > 1)}
