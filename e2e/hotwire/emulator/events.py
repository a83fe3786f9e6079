"""The emulator's decision log: every visit, routing decision, cancellation and bridge message."""
import threading
import time


class Event:
    def __init__(self, kind, web_view=None, **data):
        self.kind = kind
        self.web_view = web_view
        self.data = data
        self.time = time.monotonic()

    def __getitem__(self, key):
        return self.data[key]

    def get(self, key, default=None):
        return self.data.get(key, default)

    def matches(self, kind, fields):
        if kind is not None and self.kind != kind:
            return False
        return all(self.data.get(k) == v for k, v in fields.items())

    def __repr__(self):
        where = f"[{self.web_view}] " if self.web_view else ""
        return f"{where}{self.kind} {self.data}"


class EventLog:
    """Append-only, thread-safe; tests wait on it and assert on it."""

    def __init__(self):
        self._events = []
        self._changed = threading.Condition()

    def record(self, kind, web_view=None, **data):
        event = Event(kind, web_view, **data)
        with self._changed:
            self._events.append(event)
            self._changed.notify_all()
        return event

    def all(self):
        with self._changed:
            return list(self._events)

    def of(self, kind=None, **fields):
        return [e for e in self.all() if e.matches(kind, fields)]

    def wait_for(self, kind=None, timeout=10, predicate=None, after=0, **fields):
        """The first event (from index `after`) of `kind` with these fields; AssertionError on timeout."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for event in self._events[after:]:
                    if event.matches(kind, fields) and (predicate is None or predicate(event)):
                        return event
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"no {kind} {fields} within {timeout} s; events:\n" + self.describe())
                self._changed.wait(remaining)

    def mark(self):
        """An index to pass as `after`, to wait only for what happens from now on."""
        with self._changed:
            return len(self._events)

    def describe(self, limit=80):
        return "\n".join(f"  {e!r}" for e in self.all()[-limit:])
