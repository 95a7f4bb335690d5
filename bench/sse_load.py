"""An asyncio load tool for Server-Sent Events: opens many EventSource-like connections
(HTTP/1.1 GET with Accept: text/event-stream), and records when each one receives an event
carrying a marker. Used the same way against wsx and against nginx + nchan.

Each stream's socket is read straight from the event loop's selector (no stream objects, no task
per read), so the tool spends as little of the shared cores as it can. Every read also carries the
kernel's receive timestamp (SO_TIMESTAMPNS): the moment the bytes reached the subscriber's socket,
which does not depend on when this one Python process got around to reading them.
"""

import asyncio
import re
import resource
import socket
import struct
import time

MARKER = re.compile(rb"mark-[0-9A-Za-z]+")
# Linux (x86-64) values; Python's socket module does not name them.
SO_TIMESTAMPNS = 35
SCM_TIMESTAMPNS = SO_TIMESTAMPNS
TIMESPEC = struct.Struct("qq")


def raise_file_limit(wanted: int = 65536) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = min(max(soft, wanted), hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


class Arrival:
    """When one stream had a marker: `read` is this tool's monotonic clock when it read the bytes,
    `socket` the kernel's wall-clock time (time.time()) when they reached the socket."""
    __slots__ = ("read", "socket")

    def __init__(self, read: float, socket_time: float):
        self.read, self.socket = read, socket_time


class Watch:
    """Counts the streams that have each marker, and wakes whoever waits for all of them."""

    def __init__(self, expected: int):
        self.expected = expected
        self.counts: dict[str, int] = {}
        self.complete: dict[str, asyncio.Event] = {}

    def event_for(self, marker: str) -> asyncio.Event:
        return self.complete.setdefault(marker, asyncio.Event())

    def saw(self, marker: str) -> None:
        count = self.counts.get(marker, 0) + 1
        self.counts[marker] = count
        if count == self.expected:
            self.event_for(marker).set()


class Subscriber:
    """One open stream; `received[marker]` is its `Arrival`. Given `counting` (an event type), it
    only counts the frames of that type (`heard`) instead: a listener that loads the server more
    than the load tool."""

    def __init__(self, host: str, port: int, path: str, headers: dict, counting: str = None, tally: Watch = None):
        self.host, self.port, self.path, self.headers, self.tally = host, port, path, headers, tally
        self.counted = f"event: {counting}\n".encode() if counting else None
        self.received: dict[str, Arrival] = {}
        self.heard = 0
        self.partial = b""
        self.sock = None
        self.failed = None

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setblocking(False)
            if not self.counted:
                sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
            self.sock = sock
            await loop.sock_connect(sock, (self.host, self.port))
            lines = [f"GET {self.path} HTTP/1.1", f"Host: {self.host}:{self.port}", "Accept: text/event-stream",
                     "Cache-Control: no-cache"]
            lines += [f"{name}: {value}" for name, value in self.headers.items()]
            await loop.sock_sendall(sock, ("\r\n".join(lines) + "\r\n\r\n").encode())
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = await loop.sock_recv(sock, 65536)
                if not chunk:
                    raise ConnectionError("closed before the response head")
                head += chunk
            status = head[:head.find(b"\r\n")]
            if b" 200 " not in status:
                self.failed = status.decode(errors="replace").strip()
                return
            rest = head[head.find(b"\r\n\r\n") + 4:]
            if rest:
                self.consume(rest, time.monotonic(), time.time())
            loop.add_reader(sock.fileno(), self.readable)
        except (ConnectionError, OSError) as error:
            self.failed = str(error)

    def readable(self) -> None:
        try:
            if self.counted:
                data, ancillary = self.sock.recv(262144), []
            else:
                data, ancillary, _, _ = self.sock.recvmsg(65536, 64)
        except BlockingIOError:
            return
        except OSError:
            data, ancillary = b"", []
        if not data:
            self.close()
            return
        arrived = None
        for level, kind, value in ancillary:
            if level == socket.SOL_SOCKET and kind == SCM_TIMESTAMPNS:
                seconds, nanoseconds = TIMESPEC.unpack(value[:TIMESPEC.size])
                arrived = seconds + nanoseconds / 1e9
        self.consume(data, time.monotonic(), arrived)

    def consume(self, chunk: bytes, read: float, arrived) -> None:
        if self.counted:
            # Count, don't parse, in one pass in C; the tail of the last read is searched again
            # for a line split between two reads (too short to hold a whole one).
            data = self.partial + chunk
            self.heard += data.count(self.counted)
            self.partial = data[1 - len(self.counted):]
            return
        # One regex pass in C over the new bytes and the tail of the last read (a marker split
        # between two reads): the tool's cost per read must not grow with the payload (a wsx event
        # carries the message's HTML, an nchan message 200 bytes).
        data = self.partial + chunk
        self.partial = data[-40:]
        for marker in MARKER.findall(data):
            name = marker.decode()
            if name not in self.received:
                self.received[name] = Arrival(read, arrived if arrived is not None else time.time())
                if self.tally:
                    self.tally.saw(name)

    def close(self) -> None:
        if self.sock:
            try:
                asyncio.get_running_loop().remove_reader(self.sock.fileno())
            except (RuntimeError, ValueError):
                pass
            self.sock.close()
            self.sock = None


async def open_subscribers(count: int, host: str, port: int, path: str, headers_for,
                           counting: str = None) -> tuple[list, Watch]:
    """Opens `count` streams in waves; returns (subscribers, the watch counting their markers)
    once all are open."""
    tally = Watch(count)
    subscribers = [Subscriber(host, port, path, headers_for(index), counting, tally) for index in range(count)]
    for start in range(0, count, 500):
        wave = subscribers[start:start + 500]
        await asyncio.wait_for(asyncio.gather(*(s.run() for s in wave)), timeout=120)
    failed = [s.failed for s in subscribers if s.failed]
    if failed:
        close_subscribers(subscribers)
        raise RuntimeError(f"{len(failed)} streams failed to open, e.g. {failed[0]}")
    return subscribers, tally


def close_subscribers(subscribers: list) -> None:
    """Closes every stream opened by `open_subscribers`."""
    for subscriber in subscribers:
        subscriber.close()


async def warm_then_time(publish_for, subscribers: list, tally: Watch) -> tuple[list[float], list[float]]:
    """Times one event to every stream as a running server sees it: a first event (not timed)
    warms both ends (the publisher's connection path, prepared statements, caches), then the
    second is timed as `publish_and_time` does. `publish_for(marker)` returns the blocking call
    that sends an event carrying `marker`."""
    warm = f"mark-warm{int(time.time() * 1000)}"
    await publish_and_time(publish_for(warm), warm, subscribers, tally, close=False)
    await asyncio.sleep(0.5)
    marker = f"mark-{int(time.time() * 1000)}"
    return await publish_and_time(publish_for(marker), marker, subscribers, tally)


async def publish_and_time(publish, marker: str, subscribers: list, tally: Watch,
                           timeout: float = 30, close: bool = True) -> tuple[list[float], list[float]]:
    """Runs `publish` (a blocking call that sends the event carrying `marker`), waits until every
    stream has the marker, closes them (unless `close` is false), and returns two lists of seconds
    from just before the publish: until each stream's socket had it (kernel timestamp), and until
    this tool read it."""
    loop = asyncio.get_running_loop()
    done = tally.event_for(marker)
    start_wall, start = time.time(), time.monotonic()
    await loop.run_in_executor(None, publish)
    try:
        await asyncio.wait_for(done.wait(), timeout)
    except asyncio.TimeoutError:
        missing = sum(1 for s in subscribers if marker not in s.received)
        raise RuntimeError(f"{missing} of {len(subscribers)} streams did not get {marker} in {timeout} s")
    except BaseException:
        close_subscribers(subscribers)
        raise
    if close:
        close_subscribers(subscribers)
    arrivals = [s.received[marker] for s in subscribers]
    return [a.socket - start_wall for a in arrivals], [a.read - start for a in arrivals]
