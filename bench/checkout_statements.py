#!/usr/bin/env python3
"""Where PostgreSQL's time goes in a checkout: pg_stat_statements over a run
of cart-write-then-checkout rounds against a running server.

usage: bench/checkout_statements.py --port PORT --database-url URL
           --admin-email E --admin-password P [--shoppers 8] [--rounds 40] [--share 1] [--keyed]

The server on 127.0.0.1:PORT must run on URL's database with the admin
account given (AXIOM_ADMIN_EMAIL / AXIOM_ADMIN_PASSWORD), and that
PostgreSQL must load pg_stat_statements (shared_preload_libraries); the
script creates the extension, resets it after the set-up, and prints per
checkout, for the statements that took `--share` % of the time or more: calls,
execution ms, rows, and the statement. Run by hand (scripts/profile-checkout.sh
starts everything); a profile, not a test.
"""
import argparse
import os
import subprocess
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "scripts"))
from axiom_client import Client  # noqa: E402

PASSWORD = "checkout profile password"


def stat_fields(pid):
    """The fields of /proc/PID/stat after the command name (OSError once the process is gone)."""
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()


def postgres_cpu_seconds(postmaster):
    """utime+stime of the postmaster, its live children and the ones it reaped."""
    if not postmaster:
        return 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = stat_fields(entry)
        except OSError:
            continue
        pid, parent = int(entry), int(fields[1])
        if pid == postmaster:
            total += sum(int(f) for f in fields[11:15]) / ticks   # utime stime cutime cstime
        elif parent == postmaster:
            total += (int(fields[11]) + int(fields[12])) / ticks
    return total


def process_cpu_seconds(pid):
    """utime+stime of one process (all its threads); 0 without a pid."""
    if not pid:
        return 0.0
    fields = stat_fields(pid)
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def psql(url, sql):
    return subprocess.run(["psql", url, "-qAtX", "-F", "\t", "-c", sql], check=True,
                          capture_output=True, text=True).stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--admin-email", required=True)
    parser.add_argument("--admin-password", required=True)
    parser.add_argument("--shoppers", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--keyed", action="store_true", help="each checkout with an Idempotency-Key")
    parser.add_argument("--share", type=float, default=1.0, help="print statements over this %% of the time")
    parser.add_argument("--postmaster-pid", type=int, default=0, help="for PostgreSQL's CPU per checkout")
    parser.add_argument("--server-pid", type=int, default=0, help="for the server's CPU per checkout")
    arguments = parser.parse_args()

    admin = Client(arguments.port)
    token = admin.must(201, "POST", "/sessions", {"email": arguments.admin_email,
                                                  "password": arguments.admin_password})["token"]
    products = [admin.must(201, "POST", "/products", {
        "sku": f"PROFILE-{os.getpid()}-{n}", "name": f"Profile product {n}", "description": "profile",
        "price": {"amount": 250 + n, "currency": "USD"}, "stock": 1_000_000}, token=token) for n in range(4)]
    shoppers = []
    for n in range(arguments.shoppers):
        email = f"profile-{os.getpid()}-{n}@example.com"
        admin.must(202, "POST", "/users", {"name": "Profile", "email": email, "password": PASSWORD})
        shoppers.append(admin.must(201, "POST", "/sessions", {"email": email, "password": PASSWORD})["token"])

    psql(arguments.database_url, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
    psql(arguments.database_url, "SELECT pg_stat_statements_reset()")
    cpu_before = postgres_cpu_seconds(arguments.postmaster_pid)
    server_before = process_cpu_seconds(arguments.server_pid)
    placed = []
    failures = []

    def shop(index, shopper):
        client = Client(arguments.port)
        for round_ in range(arguments.rounds):
            product = products[(index + round_) % len(products)]
            client.must(200, "PUT", f"/cart/items/{product['id']}", {"quantity": 1 + round_ % 3}, token=shopper)
            keyed = {"Idempotency-Key": f"profile-{index}-{round_}-{os.getpid()}"} if arguments.keyed else None
            status, payload = client.call("POST", "/checkout", token=shopper, headers=keyed)
            (placed if status == 201 else failures).append(status if status != 201 else payload["id"])

    threads = [threading.Thread(target=shop, args=(i, s)) for i, s in enumerate(shoppers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    cpu = postgres_cpu_seconds(arguments.postmaster_pid) - cpu_before
    server_cpu = process_cpu_seconds(arguments.server_pid) - server_before
    if failures:
        print(f"checkouts refused: {failures[:10]}", file=sys.stderr)
    checkouts = len(placed)
    rows = psql(arguments.database_url, """
        SELECT calls, round(total_exec_time::numeric, 1), rows, regexp_replace(query, '\\s+', ' ', 'g')
        FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
        ORDER BY total_exec_time DESC""").splitlines()
    total = sum(float(r.split("\t")[1]) for r in rows)
    print(f"{checkouts} checkouts (each after one cart write); statements' execution time "
          f"{total:.0f} ms, {1000 * total / max(checkouts, 1):.0f} µs per checkout"
          + (f"; PostgreSQL's CPU {1e6 * cpu / max(checkouts, 1):.0f} µs per checkout" if cpu else "")
          + (f"; the server's {1e6 * server_cpu / max(checkouts, 1):.0f} µs" if server_cpu else ""))
    print("| calls/checkout | µs/checkout | share | rows/call | statement |")
    print("|---|---|---|---|---|")
    for row in rows:
        calls, ms, count, query = row.split("\t", 3)
        if float(ms) < total * arguments.share / 100:
            continue
        print(f"| {int(calls) / checkouts:.2f} | {1000 * float(ms) / checkouts:.0f} | {100 * float(ms) / total:.1f} % "
              f"| {int(count) / max(int(calls), 1):.1f} | `{query[:150]}` |")


if __name__ == "__main__":
    main()
