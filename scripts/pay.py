#!/usr/bin/env python3
"""Plays the payment provider: signs an event and sends it to
POST /payments/webhook (Python stdlib only).

The signature is what a provider sends: Axiom-Signature: t=<unix seconds>,
v1=<hex HMAC-SHA256 of "<t>.<raw body>" under the shared secret>.

  # pay for an order (reads its payment with the customer's token)
  scripts/pay.py --url http://127.0.0.1:8080 --secret "$SECRET" --order ID --token TOKEN
  # any event for a payment id and amount
  scripts/pay.py --secret S --payment PAYMENT_ID --amount 8000 --type payment.failed
  # a partial refund, named by the provider's refund id (recorded once)
  scripts/pay.py --secret S --order ID --token TOKEN --type refund.succeeded --amount 2000 --reference re_1
  # any body as it is (an event type the server does not handle)
  scripts/pay.py --secret S --body '{"id":"evt_1","type":"customer.created","data":{}}'
  # print the signed delivery as JSON instead of sending it (tests replay it)
  scripts/pay.py --secret S --payment ID --amount 8000 --sign-only

Prints the server's status and body; exits 0 for a 2xx answer, 1 otherwise.
"""
import argparse
import hashlib
import hmac
import json
import os
import sys
import time
import urllib.error
import urllib.request
import uuid


def signature(secret: str, body: bytes, timestamp: int) -> str:
    mac = hmac.new(secret.encode(), str(timestamp).encode() + b"." + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={mac}"


def request(url: str, method: str = "GET", body: bytes = None, headers: dict = None):
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def order_payment(base: str, order_id: str, token: str) -> dict:
    status, body = request(f"{base}/orders/{order_id}", headers={"Authorization": f"Bearer {token}"})
    if status != 200:
        sys.exit(f"GET /orders/{order_id} answered {status}: {body.decode(errors='replace')}")
    payment = json.loads(body).get("payment")
    if not payment:
        sys.exit(f"order {order_id} has no payment")
    return payment


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default=os.environ.get("AXIOM_URL", "http://127.0.0.1:8080"))
    parser.add_argument("--secret", default=os.environ.get("AXIOM_PAYMENT_WEBHOOK_SECRET"))
    parser.add_argument("--type", default="payment.succeeded",
                        help="payment.succeeded, payment.failed, refund.succeeded, chargeback.created "
                             "(or any other, ignored by the server)")
    parser.add_argument("--order", help="order id: its payment id and amount are read with --token")
    parser.add_argument("--token", help="bearer token of the order's owner or an admin")
    parser.add_argument("--payment", help="payment id (instead of --order)")
    parser.add_argument("--amount", type=int, help="amount in minor units (default: the payment's)")
    parser.add_argument("--currency", default=None, help="currency code (default: the payment's, else USD)")
    parser.add_argument("--event-id", default=None, help="event id (default: a new evt_…)")
    parser.add_argument("--reference", default=None, help="the provider's charge or refund id (data.reference)")
    parser.add_argument("--body", default=None, help="sign and send this body as it is (no event is built)")
    parser.add_argument("--timestamp", type=int, default=None, help="t to sign (default: now)")
    parser.add_argument("--sign-only", action="store_true", help="print {body, signature} instead of sending")
    args = parser.parse_args()
    if not args.secret:
        parser.error("--secret or AXIOM_PAYMENT_WEBHOOK_SECRET is required")

    base = args.url.rstrip("/")
    if args.body is not None:
        return deliver(args, base, args.body.encode())
    payment_id, amount, currency = args.payment, args.amount, args.currency
    if args.order:
        if not args.token:
            parser.error("--order needs --token")
        payment = order_payment(base, args.order, args.token)
        payment_id = payment_id or payment["id"]
        amount = payment["amount"]["amount"] if amount is None else amount
        currency = currency or payment["amount"]["currency"]
    if not payment_id or amount is None:
        parser.error("give --order and --token, or --payment and --amount")

    data = {"payment_id": payment_id, "amount": {"amount": amount, "currency": currency or "USD"}}
    if args.reference:
        data["reference"] = args.reference
    event = {"id": args.event_id or f"evt_{uuid.uuid4().hex}", "type": args.type, "data": data}
    return deliver(args, base, json.dumps(event, separators=(",", ":")).encode())


def deliver(args, base: str, body: bytes) -> int:
    """Signs `body`, then prints it signed (--sign-only) or sends it."""
    timestamp = int(time.time()) if args.timestamp is None else args.timestamp
    header = signature(args.secret, body, timestamp)
    if args.sign_only:
        print(json.dumps({"body": body.decode(), "signature": header}))
        return 0
    status, answer = request(f"{base}/payments/webhook", "POST", body,
                             {"Content-Type": "application/json", "Axiom-Signature": header})
    print(status)
    print(answer.decode(errors="replace"))
    return 0 if 200 <= status < 300 else 1


if __name__ == "__main__":
    sys.exit(main())
