#!/usr/bin/env bash
# Coverage-guided fuzzing with libFuzzer, of the HTTP/1.1 request parser
# (default) or of request-body JSON (--json).
#
#   scripts/fuzz.sh [seconds]          # the parser, default 300 s
#   scripts/fuzz.sh --json [seconds]   # request bodies (Sources/JSONBodyFuzzer)
#
# Builds the target with `--sanitize=fuzzer` (release), writes a seed corpus
# and a dictionary, and fuzzes for the given number of seconds. The corpus
# grown so far is kept in .build/fuzz/corpus (.build/fuzz-json/corpus) and
# reused by the next run. A failing input (a trap: broken invariant, a status
# outside the allowed ones, two readings of the same bytes that disagree) is
# written to the artifacts directory and the script exits non-zero; replay
# it with
#   swift build --product HTTPParserFuzzer && .build/debug/HTTPParserFuzzer <file>
#   swift build --product JSONBodyFuzzer && .build/debug/JSONBodyFuzzer <file>
#
# Environment: FUZZ_DIR (default .build/fuzz or .build/fuzz-json),
# FUZZ_COVERAGE=1 (afterwards, replay the corpus through a coverage build and
# print the target's line coverage with llvm-cov), and FUZZ_ARGS for extra
# libFuzzer flags.
set -euo pipefail

target=HTTPParserFuzzer
if [ "${1:-}" = "--json" ]; then
    target=JSONBodyFuzzer
    shift
fi
seconds="${1:-300}"
cd "$(dirname "$0")/.."
if [ "$target" = JSONBodyFuzzer ]; then
    dir="${FUZZ_DIR:-.build/fuzz-json}"
    max_len=8192
    covered="Sources/Presentation/JSON Sources/Domain/Shared/TextRules.swift"
else
    dir="${FUZZ_DIR:-.build/fuzz}"
    max_len=4096
    covered="Sources/HTTPServer/Parser/RequestParser.swift Sources/HTTPServer/Parser/RequestTarget.swift Sources/HTTPServer/Parser/ASCII.swift"
fi
seeds="$dir/seeds"
corpus="$dir/corpus"
artifacts="$dir/artifacts"
mkdir -p "$seeds" "$corpus" "$artifacts"

echo "== building $target (release, --sanitize=fuzzer)"
swift build -c release --sanitize=fuzzer --product "$target"
bin="$(swift build -c release --sanitize=fuzzer --show-bin-path)/$target"

if [ "$target" = JSONBodyFuzzer ]; then
# Seeds: every route's body, valid and hostile (issue 9's shapes).
json_seed() { # name bytes (printf %b escapes)
    printf '%b' "$2" > "$seeds/$1"
}
json_seed quantity        '{"quantity":3}'
json_seed quantity-ws     ' \t\r\n{ "quantity" :\n99 } \n'
json_seed quantity-huge   '{"quantity":9223372036854775808}'
json_seed quantity-neg    '{"quantity":-9223372036854775809}'
json_seed quantity-exp    '{"quantity":1e1}'
json_seed quantity-frac   '{"quantity":1.0}'
json_seed quantity-dup    '{"quantity":1,"quantity":2}'
json_seed quantity-escape '{"quantit\\u0079":3}'
json_seed trailing-comma  '{"quantity":3,}'
json_seed bom             '\xef\xbb\xbf{"quantity":3}'
json_seed utf16           '\xff\xfe{\x00"\x00q\x00"\x00:\x003\x00}\x00'
json_seed bad-utf8        '{"name":"\xc3\x28","email":"a@b.co","password":"correct horse"}'
json_seed register        '{"name":"Alice","email":"alice@example.com","password":"correct horse battery"}'
json_seed register-marks  '{"name":"e\xcc\x81\xcc\x81\xcc\x81\xcc\x81","email":"a@example.com","password":"correct horse battery"}'
json_seed login           '{"email":"alice@example.com","password":"correct horse battery"}'
json_seed profile         '{"name":"Caf\\u00e9","password":"new long password","current_password":"old"}'
json_seed admin-patch     '{"status":"suspended","role":"admin"}'
json_seed product         '{"sku":"MUG-1","name":"Mug","description":"A mug","price":{"amount":1999,"currency":"USD"},"stock":10,"active":true}'
json_seed product-price   '{"sku":"MUG-1","name":"Mug","price":{"amount":9223372036854775807,"currency":"USD"}}'
json_seed product-patch   '{"price":{"amount":1000000000001,"currency":"EUR"},"stock":-1,"active":false}'
json_seed status          '{"status":"shipped"}'
json_seed surrogates      '{"name":"\\ud834\\udd1e \\ud800"}'
json_seed nested          '[[[[[[[[[[[[[[[[{"a":[1,2,{"b":null}]}]]]]]]]]]]]]]]]'

cat > "$dir/dict" <<'EOF'
"{"
"}"
"["
"]"
":"
","
"\""
"\\u"
"\\ud800"
"\\udc00"
"true"
"false"
"null"
"0"
"1e1"
".0"
"E+"
"9223372036854775807"
"9223372036854775808"
"-9223372036854775808"
"\"quantity\":"
"\"name\":"
"\"email\":"
"\"password\":"
"\"current_password\":"
"\"status\":"
"\"role\":"
"\"sku\":"
"\"description\":"
"\"price\":"
"\"amount\":"
"\"currency\":"
"\"stock\":"
"\"active\":"
"\"USD\""
"\xef\xbb\xbf"
"\xcc\x81"
"\xe2\x80\xa8"
"\xf0\x9d\x84\x9e"
"\xed\xa0\x80"
"\xc0\xaf"
EOF
else
# Seeds. The first byte selects the configuration (bit 0: tiny limits;
# bits 1-3: the piece size of the second feeding), the rest is the stream.
seed() { # name selector-byte bytes...
    local name="$1" selector="$2"
    shift 2
    printf "\\x$selector%b" "$*" > "$seeds/$name"
}
seed get            00 'GET / HTTP/1.1\r\nHost: example.com\r\n\r\n'
seed get-tiny       01 'GET /users/42?x=1&y=a+b HTTP/1.1\r\nHost: h\r\nAccept: a\r\nAccept: b\r\n\r\n'
seed post-length    02 'POST /submit HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\nhello world'
seed chunked        04 'PUT /up HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n'
seed chunked-tiny   05 'POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n'
seed absolute       06 'GET http://example.com:8080/a%2Fb/c%20d?q=%E2%9C%93 HTTP/1.1\r\nHost: example.com\r\n\r\n'
seed pipelined      08 'GET /1 HTTP/1.1\r\nHost: h\r\n\r\nPOST /2 HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabcGET /3 HTTP/1.0\r\n\r\n'
seed expect         0a 'POST /e HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nConnection: close\r\nContent-Length: 3\r\n\r\nabc'
seed options        0c '\r\nOPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n'
seed cl-te          00 'POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'
seed cl-list        02 'POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5, 5\r\n\r\nhello'
seed te-gzip        04 'POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n'
seed obs-fold       06 'GET / HTTP/1.1\r\nHost: h\r\nX-A: a\r\n b\r\n\r\n'
seed space-colon    08 'GET / HTTP/1.1\r\nHost : h\r\n\r\n'
seed bare-lf        0a 'GET / HTTP/1.1\nHost: h\n\n'
seed two-hosts      0c 'GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n'
seed version        0e 'GET / HTTP/2.0\r\nHost: h\r\n\r\n'
seed long-line      01 'GET /aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa HTTP/1.1\r\nHost: h\r\n\r\n'
seed big-body       03 'POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 65\r\n\r\n'
seed bad-chunk      05 'POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n'
seed percent        07 'GET /a%2/%00?q=%zz HTTP/1.1\r\nHost: h\r\n\r\n'
seed nul-value      09 'GET / HTTP/1.1\r\nHost: h\r\nX: a\0b\r\n\r\n'

cat > "$dir/dict" <<'EOF'
"\x0d\x0a"
"\x0d\x0a\x0d\x0a"
" HTTP/1.1\x0d\x0a"
" HTTP/1.0\x0d\x0a"
"HTTP/2.0"
"GET "
"POST "
"OPTIONS * "
"http://"
"https://"
"Host: "
"Content-Length: "
"Transfer-Encoding: "
"chunked"
"gzip, chunked"
"Connection: "
"close"
"keep-alive"
"Expect: "
"100-continue"
"0\x0d\x0a\x0d\x0a"
";ext=\"v\""
"%2F"
"%00"
"%E2%9C%93"
"FFFFFFFFFFFFFFFF"
"99999999999999999999"
EOF
fi

artifacts_before="$(ls "$artifacts" | wc -l)"
# Swift's own crash backtracer would catch the trap first and libFuzzer would
# never write the crashing input; leave the signal to libFuzzer.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"
echo "== fuzzing for ${seconds}s ($bin)"
log="$dir/last-run.log"
set +e
"$bin" "$corpus" "$seeds" \
    -dict="$dir/dict" \
    -max_total_time="$seconds" \
    -max_len="$max_len" \
    -use_value_profile=1 \
    -artifact_prefix="$artifacts/" \
    -print_final_stats=1 \
    ${FUZZ_ARGS:-} 2>&1 | tee "$log" | grep -E --line-buffered "INITED|pulse|DONE|ERROR|Fatal|crash|deadly|Test unit written|stat::"
status="${PIPESTATUS[0]}"
set -e

echo "== summary"
grep -E "INITED" "$log" | tail -1 || true
grep -E "DONE|#[0-9]+ +(pulse|NEW|REDUCE)" "$log" | tail -1 || true
grep -E "stat::" "$log" || true
echo "corpus: $(ls "$corpus" | wc -l) inputs in $corpus"
if [ "$status" -ne 0 ] || [ "$(ls "$artifacts" | wc -l)" -ne "$artifacts_before" ]; then
    echo "FAILED (libFuzzer exit $status); artifacts in $artifacts:" >&2
    ls -l "$artifacts" >&2
    exit 1
fi
echo "no crash"

if [ "${FUZZ_COVERAGE:-0}" = "1" ]; then
    echo "== source coverage of the corpus (replayed through a coverage build)"
    swift build --product "$target" --enable-code-coverage --scratch-path "$dir/coverage-build"
    replayer="$(swift build --enable-code-coverage --scratch-path "$dir/coverage-build" --show-bin-path)/$target"
    rm -f "$dir"/coverage-*.profraw
    find "$corpus" -type f -print0 | LLVM_PROFILE_FILE="$dir/coverage-%p.profraw" xargs -0 "$replayer" | tail -1
    tools="$(dirname "$(command -v swift)")"
    "$tools/llvm-profdata" merge -o "$dir/coverage.profdata" "$dir"/coverage-*.profraw
    # shellcheck disable=SC2086 # a list of paths
    "$tools/llvm-cov" report "$replayer" -instr-profile="$dir/coverage.profdata" $covered
fi
