"""Merges a seeded SQLite file's full-text index into one segment, in place.

A bulk import leaves FTS5's index in several segments; each server merges
its copy on start-up (CatalogClient.compactSearchIndex), about 25 s of CPU
at 1,000,000 products, which a benchmark would otherwise measure. Used by
scripts/bench-reads-1m.sh and scripts/bench-switches.sh on their copies.

usage: python3 bench/merge_search_index.py DB
"""
import sqlite3
import sys

if len(sys.argv) != 2:
    sys.exit(__doc__)
db = sqlite3.connect(sys.argv[1])
db.execute("INSERT INTO products_search(products_search) VALUES('optimize')")
db.commit()
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
db.close()
