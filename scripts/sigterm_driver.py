#!/usr/bin/env python3
"""Writers for scripts/sigterm-test.sh: signed-in shoppers set cart
quantities over keep-alive connections while wrk loads the server; the
script sends SIGTERM meanwhile. Every write answered 2xx is acknowledged;
one sent but not answered is "unknown" (it may or may not have happened);
a response cut off half-way is a failure (in-flight requests must finish).

  sigterm_driver.py setup URL ADMIN_EMAIL ADMIN_PASSWORD STATE USERS
  sigterm_driver.py write URL STATE SECONDS
  sigterm_driver.py verify URL STATE
"""
import http.client
import json
import sys
import threading
import time
import urllib.parse


def connect(url):
    parts = urllib.parse.urlsplit(url)
    return http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)


def call(conn, method, path, body=None, token=None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    response = conn.getresponse()
    data = response.read()
    return response.status, (json.loads(data) if data else None)


def setup(url, admin_email, admin_password, state_path, users):
    conn = connect(url)
    status, session = call(conn, "POST", "/sessions", {"email": admin_email, "password": admin_password})
    assert status == 201, (status, session)
    status, product = call(conn, "POST", "/products", {
        "sku": "TERM-1", "name": "Kettle", "description": "", "price": {"amount": 2500, "currency": "USD"},
        "stock": 1000}, token=session["token"])
    assert status == 201, (status, product)
    shoppers = []
    for index in range(users):
        email = f"shopper{index}@example.com"
        status, body = call(conn, "POST", "/users", {"name": f"S{index}", "email": email,
                                                       "password": "correct horse battery"})
        assert status == 202, (status, body)
        status, body = call(conn, "POST", "/sessions", {"email": email, "password": "correct horse battery"})
        assert status == 201, (status, body)
        shoppers.append(body["token"])
    with open(state_path, "w") as f:
        json.dump({"product": product["id"], "tokens": shoppers}, f)


def write(url, state_path, seconds):
    state = json.load(open(state_path))
    product, tokens = state["product"], state["tokens"]
    results = [None] * len(tokens)

    def shopper(index):
        token = tokens[index]
        acked, unknown, truncated, other = None, None, 0, 0
        conn = connect(url)
        sent = 0
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            quantity = sent % 99 + 1
            sent += 1
            try:
                status, _ = call(conn, "PUT", f"/cart/items/{product}", {"quantity": quantity}, token=token)
            except http.client.IncompleteRead:
                truncated += 1
                unknown = quantity
                break
            except (ConnectionError, http.client.RemoteDisconnected, OSError):
                # Not answered: the server closed the connection (draining or
                # gone). Whether the write happened is unknown; stop here.
                unknown = quantity
                break
            if 200 <= status < 300:
                acked = quantity
            else:
                other += 1
        results[index] = {"acked": acked, "unknown": unknown, "truncated": truncated, "other": other, "sent": sent}

    threads = [threading.Thread(target=shopper, args=(i,)) for i in range(len(tokens))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    state["results"] = results
    json.dump(state, open(state_path, "w"))
    acknowledged = sum(r["sent"] - (1 if r["unknown"] is not None else 0) - r["other"] for r in results)
    print(f"writers: {sum(r['sent'] for r in results)} sent, {acknowledged} acknowledged, "
          f"{sum(1 for r in results if r['unknown'] is not None)} unanswered at shutdown, "
          f"{sum(r['truncated'] for r in results)} truncated, {sum(r['other'] for r in results)} non-2xx")
    return 1 if any(r["truncated"] or r["other"] for r in results) else 0


def verify(url, state_path):
    state = json.load(open(state_path))
    conn = connect(url)
    lost = 0
    for token, result in zip(state["tokens"], state["results"]):
        status, cart = call(conn, "GET", "/cart", token=token)
        assert status == 200, (status, cart)
        quantities = [line["quantity"] for line in cart["items"] if line["product_id"] == state["product"]]
        found = quantities[0] if quantities else None
        if found not in (result["acked"], result["unknown"]):
            lost += 1
            print(f"LOST: cart holds {found}, last acknowledged {result['acked']}, unanswered {result['unknown']}")
    print(f"after restart: {len(state['tokens'])} carts checked, lost {lost}")
    return 1 if lost else 0


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "setup":
        setup(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]))
    elif command == "write":
        sys.exit(write(sys.argv[2], sys.argv[3], float(sys.argv[4])))
    elif command == "verify":
        sys.exit(verify(sys.argv[2], sys.argv[3]))
