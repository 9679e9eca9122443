"""Drives headless Chromium against a running axiom-server from a page on
another loopback origin (scripts/browser-test.sh starts the server).

usage: browser_driver.py API_URL ALLOWED_PAGE_PORT OTHER_PAGE_PORT ADMIN_EMAIL ADMIN_PASSWORD ACCESS_LOG

Serves scripts/browser/page.html on two ports of 127.0.0.1: the first is in
the server's cors_allowed_origins, the second is not. Exits non-zero, naming
each failed check, unless everything the browser saw is right.
"""
import functools
import http.server
import json
import sys
import threading
import time
import urllib.request
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

api, allowed_port, other_port, admin_email, admin_password, access_log = sys.argv[1:7]
page_dir = Path(__file__).resolve().parent / "browser"


def call(method, path, body=None, token=None):
    request = urllib.request.Request(api + path, method=method,
                                     data=None if body is None else json.dumps(body).encode())
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


# Enough products that GET /products?limit=100 is well over the 1 KiB threshold.
admin = call("POST", "/sessions", {"email": admin_email, "password": admin_password})["token"]
for index in range(40):
    call("POST", "/products", {"sku": f"BROWSER-{index}", "name": f"Browser product {index}",
                               "description": "A product the browser test lists, long enough to compress.",
                               "price": {"amount": 1000 + index, "currency": "USD"}, "stock": 10}, token=admin)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


servers = []
for port in (allowed_port, other_port):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", int(port)),
                                             functools.partial(QuietHandler, directory=str(page_dir)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    servers.append(server)

options = webdriver.ChromeOptions()
for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
    options.add_argument(flag)
options.binary_location = "/usr/bin/chromium"
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
# A hang guard only: every check below finishes in well under a second.
driver.set_script_timeout(60)
failures = []


def check(name, condition, seen):
    print(("ok   " if condition else "FAIL ") + f"{name}: {seen}")
    if not condition:
        failures.append(name)


try:
    driver.get(f"http://127.0.0.1:{allowed_port}/page.html")
    report = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "runChecks(arguments[0]).then(done, e => done({error: String(e)}));", api)
    check("no script error (a CORS refusal surfaces as 'Failed to fetch')", "error" not in report, report.get("error"))
    if "error" not in report:
        check("preflighted POST /users", report["register"] == 202, report["register"])
        check("preflighted POST /sessions", report["signIn"] == 201, report["signIn"])
        check("GET /users/me with a bearer token", report["me"] == 200 and report["meEmail"], report["me"])
        check("account data is no-store", report["meCacheControl"] == "no-store", report["meCacheControl"])
        check("RateLimit-Policy readable, naming the user's and the address's policies",
              '"per-user"' in (report["rateLimitPolicy"] or "") and '"per-address"' in (report["rateLimitPolicy"] or ""),
              report["rateLimitPolicy"])
        check("RateLimit readable", '"per-user";r=' in (report["rateLimit"] or ""), report["rateLimit"])
        check("cart changed with If-Match (GET /cart's ETag)",
              bool(report["cartETag"]) and report["cartIfMatch"] == 200 and report["cartQuantity"] == 1,
              (report["cartETag"], report["cartIfMatch"], report["cartQuantity"]))
        check("the same ETag again is stale: 412 precondition_failed",
              report["staleIfMatch"] == 412 and report["staleCode"] == "precondition_failed",
              (report["staleIfMatch"], report["staleCode"]))
        check("POST /events/tickets", report["ticketStatus"] == 201, report["ticketStatus"])
        live = report["liveEvent"]
        check("EventSource with a ticket saw the other session's cart change",
              live.get("type") == "cart.updated" and live.get("quantity") == 2 and bool(live.get("id")), live)
        check("a spent ticket opens no second stream", report["reusedTicket"] == "refused", report["reusedTicket"])
        check("gzip list decoded by the browser", report["listCount"] == 40, report["listCount"])
        check("list travelled compressed", 0 < report["listEncoded"] < report["listDecoded"],
              (report["listEncoded"], report["listDecoded"]))
        check("ETag readable and stable", report["etag"] and report["etag"] == report["secondETag"],
              (report["etag"], report["secondETag"]))
        check("revalidated product presented as 200", report["secondStatus"] == 200, report["secondStatus"])
        transfers = report["productTransfers"]
        # A 304 revalidation transfers only a header section (Resource
        # Timing, transferSize): the second transfer is no bigger than the
        # first one's without its body (a few bytes of slack for fields).
        check("second product fetch was a 304 (Resource Timing)",
              len(transfers) == 2 and transfers[1][0] > 0 and transfers[1][0] + transfers[0][1] <= transfers[0][0] + 16,
              transfers)
        check("traceparent continued and echoed",
              (report["traceparent"] or "").startswith("00-0af7651916cd43dd8448eb211c80319c-"), report["traceparent"])
    # The access log is flushed every 50 ms: poll it (bounded; a hang guard, not a timing check).
    revalidated = []
    for _ in range(200):
        revalidated = [line for line in Path(access_log).read_text().splitlines()
                       if '"route":"/products/{id}"' in line and '"status":304' in line]
        if revalidated:
            break
        time.sleep(0.05)
    check("server logged the 304", len(revalidated) == 1, len(revalidated))
    refused_stream = []
    for _ in range(200):
        refused_stream = [line for line in Path(access_log).read_text().splitlines()
                          if '"route":"/events"' in line and '"status":401' in line]
        if refused_stream:
            break
        time.sleep(0.05)
    check("server logged the spent ticket's 401, without the ticket", len(refused_stream) == 1
          and "ticket" not in refused_stream[0], refused_stream)
    driver.get(f"http://127.0.0.1:{other_port}/page.html")
    blocked = driver.execute_async_script(
        "const done = arguments[arguments.length - 1]; blockedCheck(arguments[0]).then(done);", api)
    check("an origin not listed is blocked", blocked == "blocked", blocked)
finally:
    driver.quit()
    for server in servers:
        server.shutdown()

if failures:
    print(f"browser test: {len(failures)} check(s) failed: {', '.join(failures)}")
    sys.exit(1)
print("browser test: all checks passed")
