"""A real SMTP server for the tests, the crash and cluster tests and a local
try-out (README): aiosmtpd on 127.0.0.1.

Makes a trustme CA (its PEM at DIR/ca.pem) and a certificate for
--cert-host, serves STARTTLS (--tls starttls), implicit TLS (--tls implicit)
or plain text (--tls none), AUTH PLAIN and LOGIN for user/secret when --auth
is given, answers 451 to the first --defer messages' DATA, 550 to any
recipient whose local part is "nobody", offers PIPELINING unless
--no-pipelining (and records whether MAIL came with what follows), and writes each accepted message to
DIR as N.json (envelope and connection number) and N.eml (the raw bytes).
Prints {"port": …, "ca": …} on its first line once listening; exits after
--lifetime seconds or when stdin closes; closes a connection idle for
--idle-timeout seconds.
"""
import argparse, json, os, socket, ssl, sys, threading, time

import trustme
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult

USER, PASSWORD = "user", "secret"


class Recorder:
    def __init__(self, directory, defer, pipelining):
        self.directory, self.defer, self.pipelining = directory, defer, pipelining
        self.connections = self.messages = self.data_seen = 0
        self.lock = threading.Lock()

    async def handle_EHLO(self, server, session, envelope, hostname, responses):
        session.host_name = hostname
        # One SMTP object per connection; numbered at its first EHLO, so
        # the Controller's own readiness probe (no EHLO) is not counted.
        with self.lock:
            if not hasattr(server, "connection_number"):
                self.connections += 1
                server.connection_number = self.connections
        # aiosmtpd reads commands in order, so pipelined ones work; say so.
        return responses[:-1] + ["250-PIPELINING", responses[-1]] if self.pipelining else responses

    async def handle_MAIL(self, server, session, envelope, address, mail_options):
        # Pipelined, RCPT and DATA came with MAIL and wait in the reader.
        envelope.pipelined = len(server._reader._buffer) > 0
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.split("@")[0] == "nobody":
            return "550 5.1.1 No such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            self.data_seen += 1
            if self.data_seen <= self.defer:
                return "451 4.3.0 Try again later"
            self.messages += 1
            number = self.messages
        base = os.path.join(self.directory, str(number))
        with open(base + ".eml", "wb") as raw:
            raw.write(envelope.original_content)
        record = {"accepted_at": time.time(), "mail_from": envelope.mail_from, "rcpt_tos": envelope.rcpt_tos,
                  "mail_options": envelope.mail_options, "connection": server.connection_number,
                  "pipelined": envelope.pipelined,
                  "authenticated": bool(session.authenticated),
                  "tls": server.transport.get_extra_info("ssl_object") is not None}
        with open(base + ".json.tmp", "w") as out:
            json.dump(record, out)
        os.replace(base + ".json.tmp", base + ".json")
        return f"250 2.0.0 Ok: queued as Q{number}"


def authenticator(server, session, envelope, mechanism, auth_data):
    ok = auth_data.login == USER.encode() and auth_data.password == PASSWORD.encode()
    return AuthResult(success=ok, handled=False)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--tls", choices=["none", "starttls", "implicit"], default="starttls")
    parser.add_argument("--cert-host", default="localhost")
    parser.add_argument("--auth", action="store_true")
    parser.add_argument("--auth-mechanisms", default="PLAIN LOGIN")
    parser.add_argument("--defer", type=int, default=0)
    parser.add_argument("--no-pipelining", action="store_true")
    parser.add_argument("--idle-timeout", type=float, default=300)
    parser.add_argument("--lifetime", type=float, default=120)
    parser.add_argument("--port", type=int, default=0, help="listen here (default: a free port)")
    args = parser.parse_args()

    ca = trustme.CA()
    ca.cert_pem.write_to_path(os.path.join(args.dir, "ca.pem"))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert(args.cert_host).configure_cert(context)

    # aiosmtpd counts only STARTTLS as TLS; an implicit-TLS connection is one too.
    kwargs = dict(enable_SMTPUTF8=True, auth_require_tls=args.tls == "starttls", timeout=args.idle_timeout)
    if args.tls == "starttls":
        kwargs.update(tls_context=context, require_starttls=True)
    if args.auth:
        kwargs.update(authenticator=authenticator, auth_required=True,
                      auth_exclude_mechanism=[m for m in ("PLAIN", "LOGIN") if m not in args.auth_mechanisms.split()])
    port = args.port or free_port()
    recorder = Recorder(args.dir, args.defer, not args.no_pipelining)
    controller = Controller(recorder, hostname="127.0.0.1", port=port,
                            ssl_context=context if args.tls == "implicit" else None,
                            server_hostname="test.smtp", **kwargs)
    controller.start()
    print(json.dumps({"port": port, "ca": os.path.join(args.dir, "ca.pem")}), flush=True)
    # Bounded: stdin closing (the test ended) or the lifetime, whichever first.
    threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
    time.sleep(args.lifetime)
    controller.stop()


if __name__ == "__main__":
    main()
