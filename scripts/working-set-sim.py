#!/usr/bin/env python3
"""The product working set's hit share under scripts/bench-reads-1m.sh's reads,
simulated (issue 25): CLOCK with the doorkeeper as `WorkingSet.admit` keeps
them (every miss kept while there is room; once full, a key only on its
second arrival within the last 2 x capacity keys turned away; an exact set
stands in for the Bloom filter, one set for the 16 shards), fed the bench's
sequence: WARM uniform reads (its 3 s warm-up), then ROUNDS rounds of PER
Zipf(1.0) reads drawn as bench/product_popular.lua draws them (rank N^u).
Prints, per bound, each round's hit share with the doorkeeper and with
every miss kept. Run by hand, never by tests; docs/working-sets.md has
what it said.

usage: scripts/working-set-sim.py BOUND [BOUND ...]
       (N=1000000 WARM=45000 ROUNDS=3 PER=170000 SEED=1 in the environment)
"""
import os
import random
import sys

N = int(os.environ.get("N", 1_000_000))
WARM = int(os.environ.get("WARM", 45_000))
ROUNDS = int(os.environ.get("ROUNDS", 3))
PER = int(os.environ.get("PER", 170_000))
SEED = int(os.environ.get("SEED", 1))


def run(capacity, doorkeeper):
    draw = random.Random(SEED)
    slots, keys, referenced, hand = {}, [], [], 0
    noted, window = set(), 2 * capacity

    def miss(key):
        nonlocal hand
        if len(keys) < capacity:
            slots[key] = len(keys)
            keys.append(key)
            referenced.append(False)
            return
        if doorkeeper and key not in noted:
            if len(noted) >= window:
                noted.clear()
            noted.add(key)
            return
        while referenced[hand]:
            referenced[hand] = False
            hand = (hand + 1) % capacity
        del slots[keys[hand]]
        keys[hand], referenced[hand], slots[key] = key, False, hand
        hand = (hand + 1) % capacity

    def read(key):
        slot = slots.get(key)
        if slot is None:
            miss(key)
            return 0
        referenced[slot] = True
        return 1

    for _ in range(WARM):
        read(draw.randrange(N))
    return [sum(read(int(N ** draw.random())) for _ in range(PER)) / PER for _ in range(ROUNDS)]


if len(sys.argv) < 2 or not all(arg.isdigit() for arg in sys.argv[1:]):
    sys.exit(__doc__)
for bound in map(int, sys.argv[1:]):
    kept = ", ".join(f"{share:.1%}" for share in run(bound, True))
    every = ", ".join(f"{share:.1%}" for share in run(bound, False))
    print(f"{bound}: with the doorkeeper {kept}; every miss kept {every}")
