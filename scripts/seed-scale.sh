#!/usr/bin/env bash
# Fills a database with a shop's worth of data for scale measurements:
#   scripts/seed-scale.sh DB --products N [--users N] [--orders N] [--vocabulary zipf|dense] --out DIR
# DB must not be in use by a running server. The server binary
# (AXIOM_BINARY, default .build/release/axiom-server) is started once on DB
# (127.0.0.1, a free port) so that it migrates the file, hashes the one
# password (argon2id) for a template user and stores a real order for a
# template checkout; it is stopped, and bench/seed_scale.py inserts the rest
# straight through SQLite, copying those templates.
# Writes DIR/product_ids.txt, DIR/user_emails.txt, DIR/order_ids.txt,
# DIR/search_terms.txt and DIR/password.txt (every seeded user's password).
# --vocabulary: zipf (default: 4,000 words with a realistic long tail) or
# dense (the first harness's 123 words, each in 2-10% of the catalogue);
# see bench/seed_scale.py.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/load-test-env.sh   # config/README.md's load-test settings

usage() { echo "usage: $0 DB --products N [--users N] [--orders N] [--vocabulary zipf|dense] --out DIR" >&2; exit 2; }
[ $# -ge 1 ] || usage
DB=$1; shift
PRODUCTS=0 USERS=0 ORDERS=0 OUT= VOCABULARY=zipf
while [ $# -gt 0 ]; do
  case $1 in
    --products) PRODUCTS=$2; shift 2 ;;
    --users) USERS=$2; shift 2 ;;
    --orders) ORDERS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --vocabulary) VOCABULARY=$2; shift 2 ;;
    *) usage ;;
  esac
done
[ -n "$OUT" ] || usage
if [ "$ORDERS" -gt 0 ] && [ "$USERS" -eq 0 ]; then echo "seed-scale: --orders needs --users" >&2; exit 2; fi
BINARY=${AXIOM_BINARY:-.build/release/axiom-server}
[ -x "$BINARY" ] || { echo "seed-scale: no server binary $BINARY (swift build -c release)" >&2; exit 1; }
mkdir -p "$OUT" "$(dirname "$DB")"

PASSWORD="scale password 1"
TEMPLATE_EMAIL=scale-template@example.com
ADMIN_EMAIL=scale-admin@example.com
ADMIN_PASSWORD="scale admin password"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
URL="http://127.0.0.1:$PORT"
LOG="$OUT/seed-server.log"

AXIOM_ADMIN_EMAIL=$ADMIN_EMAIL AXIOM_ADMIN_PASSWORD=$ADMIN_PASSWORD \
  "$BINARY" --host 127.0.0.1 --port "$PORT" --database "$DB" --log-level warning >>"$LOG" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 1 600); do curl -sf "$URL/ready" >/dev/null && break; sleep 0.1; done
curl -sf "$URL/ready" >/dev/null || { echo "seed-scale: the server did not get ready; see $LOG" >&2; exit 1; }

json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
signin() {
  curl -sf -X POST "$URL/sessions" -H 'Content-Type: application/json' \
    -d "{\"email\":\"$1\",\"password\":\"$2\"}" | json "['token']"
}
curl -sf -X POST "$URL/users" -H 'Content-Type: application/json' \
  -d "{\"name\":\"Scale Template\",\"email\":\"$TEMPLATE_EMAIL\",\"password\":\"$PASSWORD\"}" >/dev/null
if [ "$ORDERS" -gt 0 ]; then
  ADMIN=$(signin "$ADMIN_EMAIL" "$ADMIN_PASSWORD")
  PRODUCT=$(curl -sf -X POST "$URL/products" -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
    -d '{"sku":"SCALE-TEMPLATE","name":"Template product","description":"The template order'\''s line","price":{"amount":1000,"currency":"USD"},"stock":10}' \
    | json "['id']")
  SHOPPER=$(signin "$TEMPLATE_EMAIL" "$PASSWORD")
  curl -sf -X PUT "$URL/cart/items/$PRODUCT" -H "Authorization: Bearer $SHOPPER" -H 'Content-Type: application/json' \
    -d '{"quantity":1}' >/dev/null
  curl -sf -X POST "$URL/checkout" -H "Authorization: Bearer $SHOPPER" >/dev/null
fi
kill $SERVER
wait $SERVER 2>/dev/null || true
trap - EXIT

started=$SECONDS
python3 bench/seed_scale.py "$DB" "$PRODUCTS" "$USERS" "$ORDERS" "$OUT" "$TEMPLATE_EMAIL" "$VOCABULARY"
printf '%s\n' "$PASSWORD" >"$OUT/password.txt"
echo "seed-scale: $PRODUCTS products, $USERS users, $ORDERS orders in $DB ($((SECONDS - started)) s); password in $OUT/password.txt" >&2
