"""Deadlines for the OTLP receiver's connections: one watcher thread cuts a connection whose
request (headers, then body) has not arrived by its deadline, however slowly it trickles bytes."""

from __future__ import annotations

import socket
import threading
import time


class Deadlines(threading.Thread):
    """The one watcher: connections waiting for a request's headers or body, each with the moment
    it is cut; a connection past its deadline is shut down (its handler sees the end of input)."""

    def __init__(self) -> None:
        super().__init__(name="otlp-deadlines", daemon=True)
        self.lock = threading.Lock()
        self.waiting: dict[socket.socket, tuple[float, float]] = {}  # socket -> (since, deadline)
        self.stopped = threading.Event()

    def arm(self, conn: socket.socket, seconds: float) -> None:
        now = time.monotonic()
        with self.lock:
            since = self.waiting.get(conn, (now, 0.0))[0]
            self.waiting[conn] = (since, now + seconds)

    def disarm(self, conn: socket.socket) -> None:
        with self.lock:
            self.waiting.pop(conn, None)

    def evict_longest_waiting(self) -> bool:
        """Cut the connection that has waited longest for its request (True), if one waits."""
        with self.lock:
            if not self.waiting:
                return False
            conn = min(self.waiting, key=lambda c: self.waiting[c][0])
            self.waiting.pop(conn)
        _cut(conn)
        return True

    def run(self) -> None:
        while not self.stopped.wait(0.2):
            now = time.monotonic()
            with self.lock:
                late = [c for c, (_since, until) in self.waiting.items() if until <= now]
                for conn in late:
                    self.waiting.pop(conn)
            for conn in late:
                _cut(conn)


def _cut(conn: socket.socket) -> None:
    try:
        conn.shutdown(socket.SHUT_RDWR)
    except OSError:  # already closed by its handler
        pass
