"""Parses one message file with Python's email package (the modern policy,
which decodes RFC 2047 words and RFC 6532 UTF-8 headers) and prints what
the tests check as JSON: header fields decoded, the MIME structure, each
part's decoded text, and every defect the parser found."""
import email, email.policy, email.utils, json, sys

with open(sys.argv[1], "rb") as source:
    raw = source.read()
message = email.message_from_bytes(raw, policy=email.policy.SMTPUTF8)


def mailboxes(field):
    header = message[field]
    return [] if header is None else [{"name": a.display_name, "address": a.addr_spec} for a in header.addresses]


# Text travels with CRLF line ends (RFC 2046 4.1.1); the reader's text has "\n".
parts = [{"type": part.get_content_type(), "charset": part.get_content_charset(),
          "encoding": part["Content-Transfer-Encoding"], "text": part.get_content().replace("\r\n", "\n")}
         for part in message.walk() if not part.is_multipart()]
defects = [repr(d) for part in message.walk() for d in part.defects]
print(json.dumps({
    "from": mailboxes("From"), "to": mailboxes("To"), "reply_to": mailboxes("Reply-To"),
    "subject": str(message["Subject"]), "message_id": message["Message-ID"],
    "date": email.utils.parsedate_to_datetime(message["Date"]).isoformat(),
    "mime_version": message["MIME-Version"], "content_type": message.get_content_type(),
    "parts": parts, "defects": defects,
    "longest_line": max(len(line) for line in raw.split(b"\r\n")),
    "bare_lf": raw.replace(b"\r\n", b"").count(b"\n"),
}, ensure_ascii=False))
