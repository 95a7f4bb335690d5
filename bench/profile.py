"""Where a page's server CPU goes: `perf record -g` on the release server while wrk asks for one
page for 10 s, then the samples summed into a few buckets, in µs per request.

    python3 bench/profile.py channel|home|kept|healthz|post [--top N] [--inclusive N] [--stacks FILE]

`channel` and `home` ask for a new address each request (`?fresh=N`), so every page is rendered
(its reads still come from memory, as in the `pages` section); `kept` asks for the channel page at
one address, which the server answers with the page it kept; `post` posts to the channel as the
`posts` section does (16 clients, 100 streams listening), so its figures are per post. WSX_BENCH_BINARY profiles another
build. Needs Debian's `linux-perf` and `wrk` (`make bench-deps`). A bucket is the first of the
patterns below found anywhere in a sample's stack, so each sample counts once; `--top N` also lists
the N functions that take most samples themselves; `--inclusive N` the N functions found most
often anywhere in a sample's stack (what they and everything they call take); `--stacks FILE` keeps
`perf script`'s text for reading further.
"""
import collections
import contextlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run  # noqa: E402

FREQUENCY = 1999
# (bucket, pattern in a mangled or plain symbol): first match wins, so specific before general.
BUCKETS = [
    ("message list (assembling 50 fragments)", "MessageListRenderer"),
    ("layout and room skeleton around the list", "SplicedPages"),
    ("room page (RoomsController.show, the rest)", "RoomsController"),
    ("workspace home (WorkspacesController.home)", "WorkspacesController"),
    ("sidebar, counts, top bar (Pages.chrome)", "Pages6chrome"),
    ("session lookup", "SessionMiddleware"),
    ("kept pages (RenderedPageMiddleware)", "RenderedPageMiddleware"),
    # A post's parts (mode `post`): its transaction on the writer's queue, the hub choosing who
    # hears it, frames queued on each stream and flushed, the push queue, and the request itself.
    ("post: writing it (group commit, SQLite)", "11GroupCommit"),
    ("post: the hub choosing its streams", "11RealtimeHub"),
    ("post: frames queued on the streams", "17EventStreamHandleV"),
    ("post: streams flushed to their sockets", "13StreamFlusher"),
    ("post: the push queue", "12PushNotifier"),
    ("post: the request (MessagePoster)", "13MessagePoster"),
    ("security headers", "SecurityHeaders"),
    ("routing", "RouterTrie"),
    ("sending the response: kernel and NIO flush", "invokeFlush"),
    ("sending the response: NIO write", "EventStreamHandlerC5write"),
    ("reading the request", "channelRead"),
    ("other wsx code", "wsx_web"),
    ("SQLite", "sqlite3"),
    ("Swift concurrency: task switches", "swift_task_switch"),
    ("Swift concurrency: running jobs", "swift_job_run"),
    ("event loop waiting", "blockingWaitForWork"),
]


def samples(script: str) -> list[list[str]]:
    stacks, current = [], []
    for line in script.splitlines():
        line = line.strip()
        if not line:
            if current:
                stacks.append(current)
            current = []
            continue
        parts = line.split(None, 1)
        current.append(parts[1] if len(parts) > 1 else "?")
    if current:
        stacks.append(current)
    return stacks


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "channel"
    option = lambda name: sys.argv[sys.argv.index(name) + 1] if name in sys.argv else None  # noqa: E731
    top, inclusive, keep = int(option("--top") or 0), int(option("--inclusive") or 0), option("--stacks")
    folder = run.seeded(20_000)
    data = Path(tempfile.mkdtemp(prefix="wsx-profile-"))
    record = data / "perf.data"
    # perf attaches once the server is up and set up, so its start (templates, migrations) is
    # not counted against the requests.
    with run.SeededServer(folder) as server:
        base = server.base
        browser = run.signed_in(base)
        workspace = re.search(r'href="/w/(\d+)"', browser.get("/workspaces")).group(1)
        channel = re.search(rf'href="(/w/{workspace}/c/\d+)"', browser.get(f"/w/{workspace}")).group(1)
        recording = lambda: recorded(server.process.pid, record)  # noqa: E731
        if mode == "post":
            browser.get(channel)
            result = posting(base, browser, channel, recording)
        else:
            path = {"channel": channel, "kept": channel, "home": f"/w/{workspace}", "healthz": "/healthz"}[mode]
            with recording():
                result = run.wrk(base + path, 16, 10, browser.cookie_header(), unique=mode in ("channel", "home"))
    script = subprocess.run(["perf", "script", "-i", str(record), "-F", "ip,sym"], capture_output=True, text=True).stdout
    shutil.rmtree(data)
    if keep:
        Path(keep).write_text(script)
    stacks = samples(script)
    requests = result["rps"] * result["seconds"]
    counts = collections.Counter()
    for stack in stacks:
        joined = " ".join(stack)
        counts[next((name for name, pattern in BUCKETS if pattern in joined), "everything else")] += 1
    micros = lambda count: count / FREQUENCY * 1e6 / requests  # noqa: E731
    print(f"{mode}: {result['rps']:,.0f} requests/s under perf, {micros(len(stacks)):.0f} µs of server CPU per request")
    print("| where | µs per request | share |\n|---|---|---|")
    for name, count in counts.most_common():
        print(f"| {name} | {micros(count):.1f} | {count / len(stacks):.0%} |")
    if top:
        ranked(collections.Counter(stack[0].split("+")[0] for stack in stacks), top, len(stacks), micros,
               f"Top {top} functions by their own samples")
    if inclusive:
        ranked(collections.Counter(name for stack in stacks for name in {frame.split("+")[0] for frame in stack}),
               inclusive, len(stacks), micros, f"Top {inclusive} functions anywhere in a stack (themselves and what they call)")


@contextlib.contextmanager
def recorded(pid: int, record: Path):
    """`perf record -g` on a running process while the block runs."""
    perf = subprocess.Popen(["perf", "record", "-F", str(FREQUENCY), "-g", "-o", str(record), "-p", str(pid)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1)  # attaching takes a moment; samples before the load would count against no request
    try:
        yield
    finally:
        perf.send_signal(signal.SIGINT)
        perf.wait(timeout=60)


def posting(base: str, browser: "run.Browser", channel: str, recording) -> dict:
    """wrk posting to `channel` for 10 s while 100 streams listen, as in `run.posts`."""
    import asyncio
    from sse_load import close_subscribers, open_subscribers, raise_file_limit
    raise_file_limit()
    port = int(base.rsplit(":", 1)[1])

    async def load() -> dict:
        subscribers, _ = await open_subscribers(100, "127.0.0.1", port, "/events",
                                                lambda i: {"Cookie": browser.cookie_header()}, counting="message.created")
        with recording():
            result = await asyncio.get_running_loop().run_in_executor(None, lambda: run.wrk(
                base + channel + "/messages", 16, 10, browser.cookie_header(), "POST", "content=benchmark+post",
                f"X-CSRF-Token: {browser.token}\nAccept: application/json\nContent-Type: application/x-www-form-urlencoded\n"))
        close_subscribers(subscribers)
        return result

    return asyncio.run(load())


def ranked(counts: collections.Counter, limit: int, total: int, micros, heading: str) -> None:
    names = [name for name, _ in counts.most_common(limit)]
    plain = subprocess.run(["swift", "demangle", "--simplified"], input="\n".join(names), capture_output=True,
                           text=True).stdout.splitlines()
    print(f"\n{heading}:")
    for name, readable in zip(names, plain):
        print(f"  {counts[name] / total:5.1%}  {micros(counts[name]):6.1f} µs  {readable[:150]}")


if __name__ == "__main__":
    main()
