#!/usr/bin/env python3
"""Seeds N products straight into a stopped server's database (benchmarks
only) and writes their ids, one per line, for the wrk scripts. The search
index follows by the schema's triggers; `name_folded` is written here as
the server writes it (the names are ASCII, so SQL's lower() is exact). Product ids are deterministic (uuid5) so runs
are comparable.

usage: seed_products.py DATABASE COUNT IDS_FILE
"""
import sqlite3
import sys
import uuid

database, count, ids_file = sys.argv[1], int(sys.argv[2]), sys.argv[3]
namespace = uuid.UUID("6f1c2a40-0000-4000-8000-000000000000")
now = "2026-01-01T00:00:00.000Z"
ids = [str(uuid.uuid5(namespace, str(index))) for index in range(count)]
with sqlite3.connect(database) as connection:
    connection.executemany(
        "INSERT OR IGNORE INTO products (id, sku, name, name_folded, description, price_amount, price_currency, stock,"
        " active, version, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'USD', 1000000, 1, 1, ?, ?)",
        [(ids[i], f"SKU-{i:06d}", f"Product {i}", f"product {i}", f"Benchmark product number {i}.", 100 + i % 5000,
          now, now)
         for i in range(count)])
with open(ids_file, "w") as out:
    out.write("\n".join(ids) + "\n")
