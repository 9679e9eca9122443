#!/usr/bin/env python3
"""Fills a stopped server's database with a shop's worth of data, straight
through SQLite (run by scripts/seed-scale.sh, which first starts the server
once on the file so that it migrates it and makes the templates below).

- products: N, ids uuid5 (deterministic, so runs compare), names of three
  words from fixed vocabularies ("Brushed copper kettle 0042"), a
  description of eight more, SKU "SC-0000042"; the FTS5 search index is
  filled by the schema's triggers, as the server's own writes fill it.
- users: N customers, each with a copy of the template user's argon2id hash
  (made by the server: they all sign in with the template's password);
  every other user has a cart of two lines.
- orders: N, spread round-robin over the users, each a copy of the order
  document the server stored for the template checkout with its ids, lines
  and totals replaced, plus its `cart_cleared_checkouts` row (as a checkout
  leaves it; without it start-up reconciliation would clear carts).

Vocabulary (VOCABULARY, default zipf):
- zipf: names and descriptions draw from 4,000 words (the 157 real words
  below first, then pronounceable made-up ones) with Zipf-Mandelbrot
  frequencies, p(k) ~ 1/(k + 10): the commonest word is in about 5% of
  names and 12% of descriptions, the median word in about 1,000 of
  1,000,000 products, as a real catalogue's long tail of words is.
- dense: the earlier vocabulary, each name an adjective, a material and a
  noun drawn uniformly from 48, 30 and 57 words: every word is in 2-10% of
  the catalogue, so every search is a search for a very common word.

usage: seed_scale.py DATABASE PRODUCTS USERS ORDERS OUT_DIR TEMPLATE_EMAIL [VOCABULARY]
writes OUT_DIR/product_ids.txt, user_emails.txt, order_ids.txt and
search_terms.txt (words that occur in names, for varied search requests).
"""
import datetime
import itertools
import json
import os
import random
import sqlite3
import sys
import time
import uuid

database, products, users, orders, out_dir, template_email = sys.argv[1:7]
vocabulary = sys.argv[7] if len(sys.argv) > 7 else "zipf"
if vocabulary not in ("zipf", "dense"):
    sys.exit(f"seed_scale: vocabulary {vocabulary} is neither zipf nor dense")
products, users, orders = int(products), int(users), int(orders)
rng = random.Random(12)
now_text = "2026-01-01T00:00:00.000Z"
now_ms = int(time.time() * 1000)

ADJECTIVES = """brushed polished matte glossy rustic vintage modern classic compact folding heavy light
sturdy slim round square oval tall short wide narrow soft hard smooth rough warm cool bright dark pale deep
quiet loud simple ornate elegant rugged nimble gentle bold subtle crisp plush sleek""".split()
MATERIALS = """copper brass steel iron oak walnut maple bamboo cotton linen wool leather ceramic porcelain glass
marble granite slate cork rubber silicone nylon canvas velvet silk denim tin zinc pewter""".split()
NOUNS = """kettle teapot mug cup bowl plate jar bottle lamp lantern candle vase basket tray shelf stool chair
table desk bench rack hook mirror frame clock rug blanket pillow towel apron glove hat scarf bag wallet belt
knife spoon fork ladle whisk grater pan pot skillet board brush comb box tin crate""".split()
WORDS = """for with and the a of in by from handmade durable everyday kitchen garden office travel gift home
outdoor indoor small large set pair single double fits holds keeps easy clean care finish""".split()


def made_up_words(count, seen):
    """Pronounceable words of two or three syllables, deterministic."""
    onsets = "b c d f g h j k l m n p r s t v w z br cr dr fl gr pl st tr ch sh".split()
    vowels = "a e i o u ai ea oo".split()
    codas = ["", "", "n", "r", "l", "s", "t", "m", "nd", "st"]
    words, word_rng = [], random.Random(7)
    while len(words) < count:
        word = "".join(word_rng.choice(onsets) + word_rng.choice(vowels) for _ in range(word_rng.choice((2, 2, 3))))
        word += word_rng.choice(codas)
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words

if vocabulary == "zipf":
    REAL = list(dict.fromkeys(NOUNS + MATERIALS + ADJECTIVES + WORDS))
    VOCABULARY = REAL + made_up_words(4000 - len(REAL), set(REAL))
    CUMULATIVE = list(itertools.accumulate(1.0 / (rank + 10) for rank in range(1, len(VOCABULARY) + 1)))
    def draw(count):
        return rng.choices(VOCABULARY, cum_weights=CUMULATIVE, k=count)
    def name_words():
        return draw(3)
    def description_words():
        return draw(8)
else:
    def name_words():
        return [rng.choice(ADJECTIVES), rng.choice(MATERIALS), rng.choice(NOUNS)]
    def description_words():
        return [rng.choice(WORDS + NOUNS + MATERIALS) for _ in range(8)]
name_terms = set()

namespace = uuid.UUID("5ca1e000-0000-4000-8000-000000000000")
connection = sqlite3.connect(database)
connection.execute("PRAGMA synchronous=OFF")
connection.execute("PRAGMA foreign_keys=ON")

# Products.
product_ids = []
batch = []
def flush_products():
    connection.executemany(
        "INSERT INTO products(id, sku, name, name_folded, description, price_amount, price_currency, stock, active,"
        " version, created_at, updated_at) VALUES(?, ?, ?, ?, ?, ?, 'USD', 1000000, 1, 1, ?, ?)", batch)
    batch.clear()
for index in range(products):
    product_id = str(uuid.uuid5(namespace, f"product-{index}"))
    words = name_words()
    name_terms.update(words)
    name = f"{words[0].capitalize()} {' '.join(words[1:])} {index:07d}"
    description = " ".join(description_words()).capitalize() + "."
    batch.append((product_id, f"SC-{index:07d}", name, name.lower(), description, 100 + index % 9900, now_text, now_text))
    product_ids.append(product_id)
    if len(batch) == 10000:
        flush_products()
        connection.commit()
flush_products()
connection.commit()

# Users.
row = connection.execute("SELECT password_hash FROM users WHERE email_key = ?", (template_email.lower(),)).fetchone()
if row is None:
    sys.exit(f"seed_scale: no template user {template_email} in {database}")
password_hash = row[0]
user_ids, emails, user_rows, cart_rows = [], [], [], []
for index in range(users):
    user_id = str(uuid.uuid5(namespace, f"user-{index}"))
    email = f"scale-{index}@example.com"
    user_rows.append((user_id, f"Scale user {index}", email, email, password_hash, now_ms))
    if index % 2 == 0 and len(product_ids) >= 2:
        for position, product_id in enumerate(rng.sample(product_ids[:100000], 2)):
            cart_rows.append((user_id, product_id, 1, position))
    user_ids.append(user_id)
    emails.append(email)
connection.executemany("INSERT INTO users(id, name, email, email_key, password_hash, role, status, created_at)"
                       " VALUES(?, ?, ?, ?, ?, 'customer', 'active', ?)", user_rows)
connection.executemany("INSERT INTO cart_lines(user_id, product_id, quantity, position) VALUES(?, ?, ?, ?)", cart_rows)
connection.commit()

# Orders: copies of the template checkout's stored document.
order_ids = []
if orders:
    if not user_ids:
        sys.exit("seed_scale: orders need users")
    row = connection.execute("SELECT status, document FROM orders ORDER BY created_at LIMIT 1").fetchone()
    if row is None:
        sys.exit("seed_scale: no template order in the database")
    status, template = row[0], json.loads(row[1])
    line_template = template["items"][0]
    order_rows, cleared_rows = [], []
    names = dict(connection.execute("SELECT id, name FROM products WHERE rowid <= 1000").fetchall()) or {}
    pool = list(names.items()) or [(line_template["product_id"], line_template["name"])]
    def flush_orders():
        connection.executemany(
            "INSERT INTO orders(id, user_id, status, created_at, checkout_id, idempotency_key, document)"
            " VALUES(?, ?, ?, ?, ?, NULL, ?)", order_rows)
        connection.executemany("INSERT INTO cart_cleared_checkouts(checkout_id, user_id) VALUES(?, ?)", cleared_rows)
        order_rows.clear()
        cleared_rows.clear()
    for index in range(orders):
        order_id, checkout_id = str(uuid.uuid5(namespace, f"order-{index}")), str(uuid.uuid5(namespace, f"checkout-{index}"))
        user_id = user_ids[index % len(user_ids)]
        created = now_ms - (orders - index) * 1000
        lines, total = [], 0
        for product_id, name in rng.sample(pool, min(2, len(pool))):
            quantity, price = rng.randint(1, 3), rng.randint(100, 9999)
            line = dict(line_template)
            line.update(product_id=product_id, name=name, quantity=quantity)
            line["unit_price"] = dict(line_template["unit_price"], amount=price)
            line["line_total"] = dict(line_template["line_total"], amount=price * quantity)
            lines.append(line)
            total += price * quantity
        document = dict(template)
        document.update(id=order_id, user_id=user_id, checkout_id=checkout_id, items=lines)
        document["total"] = dict(template["total"], amount=total)
        if isinstance(template.get("created_at"), str):  # RFC 3339 UTC with milliseconds, as Timestamp writes it
            stamp = datetime.datetime.fromtimestamp(created / 1000, datetime.timezone.utc)
            document["created_at"] = stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{created % 1000:03d}Z"
        else:
            document["created_at"] = created
        order_rows.append((order_id, user_id, status, created, checkout_id, json.dumps(document, separators=(",", ":"))))
        cleared_rows.append((checkout_id, user_id))
        order_ids.append(order_id)
        if len(order_rows) == 10000:
            flush_orders()
    flush_orders()
    connection.commit()
connection.close()

terms = sorted(name_terms)
for name, lines in (("product_ids.txt", product_ids), ("user_emails.txt", emails), ("order_ids.txt", order_ids),
                    ("search_terms.txt", terms)):
    with open(os.path.join(out_dir, name), "w") as out:
        out.write("\n".join(lines) + ("\n" if lines else ""))
