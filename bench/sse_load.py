"""An asyncio load tool for Server-Sent Events: opens many EventSource-like connections
(HTTP/1.1 GET with Accept: text/event-stream), and records when each one receives an event
carrying a marker. Used the same way against wsx and against nginx + nchan.
"""

import asyncio
import re
import resource
import time

MARKER = re.compile(rb"mark-[0-9A-Za-z]+")


def raise_file_limit(wanted: int = 65536) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = min(max(soft, wanted), hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


class Subscriber:
    """One open stream; `received[marker]` is the monotonic time the marker arrived. With
    `watch=False` it only counts the events of each type (`events`), a listener that loads the
    server more than the load tool."""

    def __init__(self, host: str, port: int, path: str, headers: dict, watch: bool = True):
        self.host, self.port, self.path, self.headers, self.watch = host, port, path, headers, watch
        self.received: dict[str, float] = {}
        self.events: dict[str, int] = {}
        self.partial = b""
        self.ready = asyncio.Event()
        self.writer = None
        self.failed = None

    async def run(self) -> None:
        try:
            reader, writer = await asyncio.open_connection(self.host, self.port, limit=1 << 20)
            self.writer = writer
            lines = [f"GET {self.path} HTTP/1.1", f"Host: {self.host}:{self.port}", "Accept: text/event-stream",
                     "Cache-Control: no-cache"]
            lines += [f"{name}: {value}" for name, value in self.headers.items()]
            writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
            await writer.drain()
            status = await reader.readline()
            if b" 200 " not in status:
                self.failed = status.decode(errors="replace").strip()
                self.ready.set()
                return
            while (await reader.readline()) not in (b"\r\n", b""):
                pass
            self.ready.set()
            while True:
                chunk = await reader.read(65536)
                if not chunk:
                    return
                if not self.watch:
                    # Count, don't parse: how many whole frames of each type arrived.
                    data = self.partial + chunk
                    end = data.rfind(b"\n\n") + 2
                    if end < 2:
                        self.partial = data
                        continue
                    self.partial = data[end:]
                    for kind in data[:end].split(b"\nevent: ")[1:]:
                        name = kind[:kind.find(b"\n")].decode()
                        self.events[name] = self.events.get(name, 0) + 1
                    continue
                now = time.monotonic()
                # One regex pass in C: the tool's own cost per chunk must not grow with the
                # payload (a wsx event carries the message's HTML, an nchan message 200 bytes).
                for marker in MARKER.findall(chunk):
                    self.received.setdefault(marker.decode(), now)
        except (ConnectionError, OSError) as error:
            self.failed = str(error)
            self.ready.set()

    def close(self) -> None:
        if self.writer:
            self.writer.close()


async def open_subscribers(count: int, host: str, port: int, path: str, headers_for,
                           watch: bool = True) -> tuple[list, list]:
    """Opens `count` streams in waves; returns (subscribers, their tasks) once all are open."""
    subscribers = [Subscriber(host, port, path, headers_for(index), watch) for index in range(count)]
    tasks = []
    for start in range(0, count, 500):
        wave = subscribers[start:start + 500]
        tasks += [asyncio.create_task(s.run()) for s in wave]
        await asyncio.wait_for(asyncio.gather(*(s.ready.wait() for s in wave)), timeout=120)
    failed = [s.failed for s in subscribers if s.failed]
    if failed:
        raise RuntimeError(f"{len(failed)} streams failed to open, e.g. {failed[0]}")
    return subscribers, tasks


async def wait_for_marker(subscribers: list, marker: str, timeout: float = 30) -> list[float]:
    """Waits until every subscriber has `marker`; returns their receive times."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(marker in s.received for s in subscribers):
            return [s.received[marker] for s in subscribers]
        await asyncio.sleep(0.001)
    missing = sum(1 for s in subscribers if marker not in s.received)
    raise RuntimeError(f"{missing} of {len(subscribers)} streams did not get {marker} in {timeout} s")


def close_subscribers(subscribers: list, tasks: list) -> None:
    """Closes every stream opened by `open_subscribers`."""
    for subscriber in subscribers:
        subscriber.close()
    for task in tasks:
        task.cancel()


async def publish_and_time(publish, marker: str, subscribers: list, tasks: list) -> list[float]:
    """Runs `publish` (a blocking call that sends the event carrying `marker`) and returns, per
    stream, the seconds from just before it until the stream had the marker; then closes them."""
    loop = asyncio.get_running_loop()
    start = time.monotonic()
    await loop.run_in_executor(None, publish)
    times = await wait_for_marker(subscribers, marker)
    close_subscribers(subscribers, tasks)
    return [t - start for t in times]
