#!/usr/bin/env python3
"""Copies a seeded benchmark database (SQLite, bench/seed_*.py) into a fresh
PostgreSQL schema whose tables the server's migrations already made, so the
same data can be served from either backend (scripts/bench-server.sh with
BENCH_DATABASE_URL). Python's standard library and psql only.

usage: copy_to_postgres.py SQLITE_FILE DATABASE_URL
"""
import sqlite3
import subprocess
import sys

TABLES = ["users", "sessions", "products", "cart_lines"]


def literal(value):
    if value is None:
        return "NULL"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, bytes):
        return "'\\x" + value.hex() + "'::bytea"
    return "'" + str(value).replace("'", "''") + "'"


def main(path, url):
    db = sqlite3.connect(path)
    script = ["BEGIN;"]
    for table in TABLES:
        # Generated columns (products.search, products.rowid) are PostgreSQL's own.
        columns = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
        rows = db.execute(f"SELECT {', '.join(columns)} FROM {table} ORDER BY rowid").fetchall()
        for start in range(0, len(rows), 1000):
            values = ",\n".join("(" + ", ".join(literal(v) for v in row) + ")" for row in rows[start:start + 1000])
            script.append(f"INSERT INTO {table}({', '.join(columns)}) VALUES\n{values};")
        print(f"{table}: {len(rows)} rows", file=sys.stderr)
    # Only the tables just filled: ANALYZE of an empty table records it as
    # known empty (reltuples 0), and a statement prepared on that plans a
    # sequential scan it keeps while the table grows, until autovacuum's
    # next ANALYZE (up to a minute later, longer than a benchmark run).
    # Left unanalyzed, the planner assumes a new table may grow.
    script.append(f"COMMIT; ANALYZE {', '.join(TABLES)};")
    subprocess.run(["psql", url, "-v", "ON_ERROR_STOP=1", "-q"], input="\n".join(script), text=True, check=True)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
