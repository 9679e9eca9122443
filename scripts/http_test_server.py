"""An HTTP/1.1 server for the outbound HTTP client's tests: asyncio on
127.0.0.1, one plain and one TLS listener (a trustme CA whose certificate
names localhost, 127.0.0.1 and ::1), keep-alive, and a mode per path:

  /ok               200, a JSON echo: connection number, request number on
                    that connection, method, headers, body
  /chunked          200, a chunked body with a trailer
  /no-content       204
  /gone             410
  /throttled        429 with Retry-After: 7
  /slow?ms=N        200 after N milliseconds
  /reset            the connection reset (RST) instead of an answer
  /close            200 with Connection: close, then closed
  /huge?bytes=N     200 with an N-byte body
  /redirect         302 to /ok
  /drop-when-reused 200 on a connection's first request; on a later one the
                    connection is closed without an answer (a server that
                    dropped an idle connection as the request arrived)
  /until-close      200 without a length, the body ended by closing
  /interim          100 Continue and 103 Early Hints before the 200
  /garbage          bytes that are not HTTP

Writes the CA to DIR/ca.pem and an unrelated CA to DIR/other-ca.pem, keeps
DIR/stats.json ({"connections": N, "paths": {path: requests}}) current
before each answer goes out, and prints {"http_port", "https_port", "ca", "other_ca"} once listening; exits
when stdin closes or after --lifetime seconds.
"""
import argparse, asyncio, json, os, socket, ssl, struct, sys, threading
from collections import Counter
from urllib.parse import parse_qs, urlsplit

import trustme

state = {"connections": 0, "paths": Counter(), "dir": "."}


def record():
    path = os.path.join(state["dir"], "stats.json")
    with open(path + ".tmp", "w") as out:
        json.dump({"connections": state["connections"], "paths": dict(state["paths"])}, out)
    os.replace(path + ".tmp", path)


def response(status, reason, body=b"", headers=(), length=True):
    head = [f"HTTP/1.1 {status} {reason}"] + [f"{name}: {value}" for name, value in headers]
    if length:
        head.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


async def read_request(reader):
    """(method, target, headers, body), or None at the end of the stream."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError):
        return None
    lines = head.decode("latin-1").split("\r\n")
    method, target, _ = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        if line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    body = await reader.readexactly(int(headers.get("content-length", "0")))
    return method, target, headers, body


async def serve(reader, writer):
    state["connections"] += 1
    connection, number = state["connections"], 0
    try:
        while True:
            request = await read_request(reader)
            if request is None:
                return
            number += 1
            method, target, headers, body = request
            url = urlsplit(target)
            query = {key: values[0] for key, values in parse_qs(url.query).items()}
            state["paths"][url.path] += 1
            record()
            close = headers.get("connection", "").lower() == "close"
            path = url.path
            if path == "/ok":
                echo = {"connection": connection, "request": number, "method": method, "target": target,
                        "headers": headers, "body": body.decode("utf-8", "replace")}
                writer.write(response(200, "OK", json.dumps(echo).encode(), [("Content-Type", "application/json")]))
            elif path == "/chunked":
                writer.write(response(200, "OK", headers=[("Transfer-Encoding", "chunked")], length=False)
                             + b"6\r\nhello,\r\n8;ext=1\r\n chunked\r\n6\r\n world\r\n0\r\nX-Checksum: 1\r\n\r\n")
            elif path == "/no-content":
                writer.write(response(204, "No Content", length=False))
            elif path == "/gone":
                writer.write(response(410, "Gone", b"gone"))
            elif path == "/throttled":
                writer.write(response(429, "Too Many Requests", b"slow down", [("Retry-After", "7")]))
            elif path == "/slow":
                await asyncio.sleep(int(query.get("ms", "1000")) / 1000)
                writer.write(response(200, "OK", b"slow"))
            elif path == "/reset":
                sock = writer.get_extra_info("socket")
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                writer.transport.abort()
                return
            elif path == "/close":
                writer.write(response(200, "OK", b"bye", [("Connection", "close")]))
                close = True
            elif path == "/huge":
                writer.write(response(200, "OK", b"x" * int(query.get("bytes", "1000000"))))
            elif path == "/redirect":
                writer.write(response(302, "Found", b"", [("Location", "/ok")]))
            elif path == "/drop-when-reused":
                if number > 1:
                    writer.transport.abort()
                    return
                writer.write(response(200, "OK", b"first"))
            elif path == "/until-close":
                writer.write(response(200, "OK", b"until the end", length=False))
                close = True
            elif path == "/interim":
                writer.write(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </style.css>\r\n\r\n"
                             + response(200, "OK", b"final"))
            elif path == "/garbage":
                writer.write(b"SSH-2.0-OpenSSH_9.6\r\n\r\n")
                close = True
            else:
                writer.write(response(404, "Not Found", b"no such mode"))
            await writer.drain()
            if close:
                return
    except (ConnectionError, ssl.SSLError):
        pass
    finally:
        if not writer.transport.is_closing():
            writer.close()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--lifetime", type=float, default=120)
    args = parser.parse_args()
    state["dir"] = args.dir

    ca, other = trustme.CA(), trustme.CA()
    ca_path, other_path = os.path.join(args.dir, "ca.pem"), os.path.join(args.dir, "other-ca.pem")
    ca.cert_pem.write_to_path(ca_path)
    other.cert_pem.write_to_path(other_path)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("localhost", "127.0.0.1", "::1").configure_cert(context)

    plain = await asyncio.start_server(serve, "127.0.0.1", 0)
    secure = await asyncio.start_server(serve, "127.0.0.1", 0, ssl=context)
    print(json.dumps({"http_port": plain.sockets[0].getsockname()[1], "https_port": secure.sockets[0].getsockname()[1],
                      "ca": ca_path, "other_ca": other_path}), flush=True)
    # Bounded: stdin closing (the test ended) or the lifetime, whichever first.
    threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
    await asyncio.sleep(args.lifetime)


if __name__ == "__main__":
    asyncio.run(main())
