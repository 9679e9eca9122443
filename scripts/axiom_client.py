"""The HTTP client the test drivers share (crash_driver.py, cluster_driver.py):
one keep-alive connection to a server on 127.0.0.1, JSON in and out.
Python 3 standard library only."""
import http.client
import json


class CheckFailed(Exception):
    pass


class Client:
    """One keep-alive connection; a connection problem raises (the caller
    decides whether that makes the request 'unknown')."""

    def __init__(self, port, timeout=30.0):
        self.port = port
        self.timeout = timeout
        self.connection = None

    def call(self, method, path, body=None, token=None, headers=None, raw_body=None):
        if self.connection is None:
            self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        sent = dict(headers or {})
        data = raw_body
        if body is not None:
            data = json.dumps(body).encode()
        if data is not None:
            sent["Content-Type"] = "application/json"
        if token:
            sent["Authorization"] = "Bearer " + token
        try:
            self.connection.request(method, path, body=data, headers=sent)
            response = self.connection.getresponse()
            raw = response.read()
        except Exception:
            self.close()
            raise
        if response.getheader("Connection", "").lower() == "close":
            self.close()
        try:
            payload = json.loads(raw) if raw else None
        except ValueError:
            payload = raw.decode(errors="replace")
        return response.status, payload

    def close(self):
        if self.connection is not None:
            self.connection.close()
            self.connection = None

    def must(self, expected, method, path, body=None, token=None, headers=None):
        status, payload = self.call(method, path, body, token, headers)
        if status not in (expected if isinstance(expected, tuple) else (expected,)):
            raise CheckFailed(f"{method} {path} answered {status}: {payload}")
        return payload

    def all_pages(self, path, token):
        items, cursor = [], None
        for _ in range(10000):
            query = f"{path}{'&' if '?' in path else '?'}limit=100" + (f"&cursor={cursor}" if cursor else "")
            page = self.must(200, "GET", query, token=token)
            items += page["items"]
            cursor = page.get("next_cursor")
            if not cursor:
                return items
        raise CheckFailed(f"{path} pages never ended")
