#!/usr/bin/env python3
"""Which tables and indexes a write load dirties: reads DATABASE's WAL
(DATABASE-wal) and counts its frames by the B-tree their page belongs to
now (SQLite's dbstat), most first. A page a commit changed is a frame of
that commit, so a frame is 4 KiB written (and written again by the next
checkpoint): the table says where a write path's bytes go.

The WAL holds the frames since it last restarted (a checkpoint that copied
everything lets the next writer start over at its beginning), so copy the
database and its -wal during or right after a load, with the server
still running, and run this on the copy (it reads its own copy of that
too):

  cp DB /tmp/w.db && cp DB-wal /tmp/w.db-wal && scripts/wal-pages.py /tmp/w.db

usage: scripts/wal-pages.py DATABASE [ROWS]
"""
import collections
import os
import shutil
import sqlite3
import struct
import sys
import tempfile

if len(sys.argv) not in (2, 3):
    sys.exit(__doc__)
database = sys.argv[1]
rows = int(sys.argv[2]) if len(sys.argv) == 3 else 25
with open(database + "-wal", "rb") as handle:
    wal = handle.read()
if len(wal) < 32:
    sys.exit(f"wal-pages: {database}-wal holds no frames")
# The WAL header: magic, version, page size, checkpoint sequence, two salts.
_, _, page_size, _, salt1, salt2 = struct.unpack(">IIIIII", wal[:24])
frames, commits, offset = [], 0, 32
while offset + 24 + page_size <= len(wal):
    page, size_after_commit, frame_salt1, frame_salt2 = struct.unpack(">IIII", wal[offset:offset + 16])
    if (frame_salt1, frame_salt2) != (salt1, salt2):
        break  # a frame of the WAL's previous run, not yet overwritten
    frames.append(page)
    commits += size_after_commit != 0
    offset += 24 + page_size

# dbstat on a copy: a connection to the file itself could checkpoint its
# WAL into it when it closes, and this script only reads.
owner = {}
with tempfile.TemporaryDirectory() as scratch:
    copy = os.path.join(scratch, "copy.db")
    shutil.copyfile(database, copy)
    shutil.copyfile(database + "-wal", copy + "-wal")
    connection = sqlite3.connect(copy)
    for name, page in connection.execute("SELECT name, pageno FROM dbstat"):
        owner[page] = name
    connection.close()
counts = collections.Counter(owner.get(page, "(free or new since)") for page in frames)
print(f"{len(frames)} frames of {page_size} bytes in {commits} commits ({len(frames) / max(commits, 1):.1f} a commit)")
for name, count in counts.most_common(rows):
    print(f"{100 * count / len(frames):5.1f} %  {count:8d}  {name}")
