"""Parses one message file with Python's email package (the modern policy,
which decodes RFC 2047 words and RFC 6532 UTF-8 headers) and prints what
the tests check as JSON: header fields decoded, the MIME structure, each
part's decoded text, and every defect the parser found."""
import email, email.header, email.policy, email.utils, json, sys

with open(sys.argv[1], "rb") as source:
    raw = source.read()
message = email.message_from_bytes(raw, policy=email.policy.SMTPUTF8)
# The header fields as text (RFC 6532 allows UTF-8 in them), not decoded.
raw_message = email.message_from_string(raw.decode("utf-8"), policy=email.policy.compat32)


def mailboxes(field):
    # Names through email.header's RFC 2047 decoder, which drops the space
    # between adjacent encoded-words (section 6.2) as mail readers do; the
    # modern policy's address parser keeps it.
    values = raw_message.get_all(field, [])
    return [{"name": str(email.header.make_header(email.header.decode_header(name))), "address": address}
            for name, address in email.utils.getaddresses(values)]


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
