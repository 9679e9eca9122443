#!/usr/bin/env python3
"""Seeds signed-in users straight into a stopped server's database
(benchmarks only: the server loads users, sessions and carts at start-up).

Registering and signing in over HTTP costs two argon2id operations per user
(about 0.1 s each, two at a time on two cores), so thousands of users would
take minutes. Instead one user is registered over HTTP (the template), and
every seeded user gets a copy of its argon2id hash: they all sign in with
the template's password. Their sessions are stored exactly as UserClient
stores them: a 256-bit token, base64url without padding, of which only the
SHA-256 (lower-case hex) is kept in `sessions.token_hash`.

Two groups, each user with a cart:
- shoppers (GET /cart, PUT /cart/items, POST /sessions): 3 lines each;
- buyers (POST /checkout): 1 line each; a buyer checks out once (the cart
  is cleared), so a run needs as many buyers as checkouts it can do.

usage: seed_users.py DATABASE TEMPLATE_EMAIL PRODUCT_IDS_FILE OUT_DIR SHOPPERS BUYERS
writes OUT_DIR/shopper_tokens.txt, OUT_DIR/shopper_emails.txt and
OUT_DIR/buyer_tokens.txt (one per line).
"""
import hashlib
import os
import random
import secrets
import sqlite3
import sys
import time
import uuid

database, template_email, ids_file, out_dir = sys.argv[1:5]
shoppers, buyers = int(sys.argv[5]), int(sys.argv[6])
products = [line.strip() for line in open(ids_file) if line.strip()]
now = int(time.time() * 1000)
expires = now + 24 * 3600 * 1000
rng = random.Random(4)

with sqlite3.connect(database) as connection:
    row = connection.execute("SELECT password_hash FROM users WHERE email_key = ?", (template_email.lower(),)).fetchone()
    if row is None:
        sys.exit(f"seed_users: no template user {template_email} in {database}")
    password_hash = row[0]
    run = uuid.uuid4().hex[:8]

    def seed(group, count, lines_per_cart):
        users, sessions, cart_lines, tokens, emails = [], [], [], [], []
        for index in range(count):
            user_id = str(uuid.uuid4())
            email = f"bench-{group}-{run}-{index}@example.com"
            users.append((user_id, f"Bench {group} {index}", email, email, password_hash, now))
            token = secrets.token_urlsafe(32)  # 43 characters, like SecureRandom.token(.base64url)
            sessions.append((str(uuid.uuid4()), user_id, hashlib.sha256(token.encode()).hexdigest(), now, expires))
            for position, product in enumerate(rng.sample(products, lines_per_cart)):
                cart_lines.append((user_id, product, 1, position))
            tokens.append(token)
            emails.append(email)
        connection.executemany(
            "INSERT INTO users(id, name, email, email_key, password_hash, role, status, created_at)"
            " VALUES(?, ?, ?, ?, ?, 'customer', 'active', ?)", users)
        connection.executemany(
            "INSERT INTO sessions(id, user_id, token_hash, created_at, expires_at) VALUES(?, ?, ?, ?, ?)", sessions)
        connection.executemany(
            "INSERT INTO cart_lines(user_id, product_id, quantity, position) VALUES(?, ?, ?, ?)", cart_lines)
        return tokens, emails

    shopper_tokens, shopper_emails = seed("shopper", shoppers, 3)
    buyer_tokens, _ = seed("buyer", buyers, 1)

for name, lines in (("shopper_tokens.txt", shopper_tokens), ("shopper_emails.txt", shopper_emails),
                    ("buyer_tokens.txt", buyer_tokens)):
    with open(os.path.join(out_dir, name), "w") as out:
        out.write("\n".join(lines) + "\n")
