"""The health poller tells a server that stops answering from a machine that is only busy."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.support.watch import HealthPoller


class _Held(BaseHTTPRequestHandler):
    held = threading.Event()

    def do_GET(self) -> None:
        if not _Held.held.is_set():  # the first request finds the server busy for 1.5 s
            _Held.held.set()
            time.sleep(1.5)  # the stand-in for a parse holding the loop, not a synchronisation
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args: object) -> None:
        pass


def test_a_server_held_for_longer_than_the_bound_is_caught_and_a_prompt_one_passes():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Held)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        with HealthPoller(url) as held:  # (stopping waits for the request under way)
            assert _Held.held.wait(30)
        with HealthPoller(url) as prompt:  # (it asks once at least)
            pass
    finally:
        server.shutdown()
    assert not held.answered_within(1.0), held
    assert held.slowest >= 1.5 and held.control
    assert prompt.answered_within(1.0), prompt
