#!/usr/bin/env python3
"""wsx benchmarks: `make bench` runs this after a release build and writes bench/RESULTS.md.

Everything runs on this machine over loopback, each load bounded in count and time. Every
figure is the median of several runs with min and max. Sections can be picked by name:
`python3 bench/run.py thumbnails uploads` (default: all). Standard library only.
"""

import http.cookiejar
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
# WSX_BENCH_BINARY measures another build (an earlier commit's, to compare two builds in turn).
BINARY = Path(os.environ.get("WSX_BENCH_BINARY") or ROOT / ".build" / "release" / "wsx-web")
BENCH_TOOL = ROOT / ".build" / "release" / "wsx-bench"
RESULTS: list[str] = []
# The load tools sign in, stream, connect and post in bulk from one address and one account:
# every limit meant for one person is raised here, by its flag (0 turns a per-account rate off).
BULK_FLAGS = ["--login-max-failures", "100000", "--login-max-failures-per-account", "100000",
              "--login-max-failures-per-ip", "1000000", "--signup-max-per-ip", "1000000",
              "--max-event-streams-per-account", "100000", "--max-connections-per-address", "1000000",
              "--post-burst", "0", "--posts-per-second", "0", "--upload-bytes-per-minute", "0",
              "--searches-per-minute", "0", "--signup", "open", "--invitations-per-hour", "0",
              "--status-changes-per-minute", "0"]


# ---- helpers ------------------------------------------------------------------------------

def say(line: str = "") -> None:
    print(line, flush=True)
    RESULTS.append(line)


def spread(values: list[float], unit: str = "", digits: int = 1) -> str:
    """median (min–max) as one string."""
    if not values:
        return "n/a"
    fmt = f"{{:.{digits}f}}"
    return f"{fmt.format(statistics.median(values))}{unit} ({fmt.format(min(values))}–{fmt.format(max(values))})"


def timed(command: list[str]) -> tuple[float, int]:
    """Runs a command under /usr/bin/time; returns (seconds, peak RSS in MB)."""
    result = subprocess.run(["/usr/bin/time", "-f", "%e %M", *command], capture_output=True, text=True, check=True)
    seconds, kilobytes = result.stderr.strip().splitlines()[-1].split()
    return float(seconds), int(kilobytes) // 1024


def rss_kb(pid: int, field: str = "VmRSS") -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time the process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wrk_costed(pid: int, *args, **kwargs) -> dict:
    """`wrk`, plus the server's CPU time per request (`cpu_us`). Requests per second move with
    whatever else the shared cores do; CPU per request much less, so it is the figure to compare
    two builds by."""
    before = cpu_seconds(pid)
    result = wrk(*args, **kwargs)
    result["cpu_us"] = (cpu_seconds(pid) - before) / max(result["requests"], 1) * 1e6
    return result


class Server:
    """A release wsx-web on a free port with its own data folder."""

    def __init__(self, *flags: str):
        self.data = Path(tempfile.mkdtemp(prefix="wsx-bench-"))
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            [str(BINARY), "serve", "--port", "0", "--data-dir", str(self.data), "--bcrypt-cost", "4", *BULK_FLAGS,
             "--log-level", "error", *flags],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline()
        match = re.search(r"http://[0-9.]+:(\d+)", line)
        if not match:
            raise RuntimeError(f"server did not start: {line!r}")
        self.port = int(match.group(1))
        self.base = f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.data, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.stop()


class Browser:
    """Just enough of a browser for setting up scenarios: cookies, CSRF token, forms."""

    def __init__(self, base: str):
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), NoRedirect())
        self.token = ""

    def get(self, path: str) -> str:
        with self.opener.open(self.base + path) as response:
            html = response.read().decode()
        match = re.search(r'<meta name="csrf-token" content="([^"]+)">', html)
        if match:
            self.token = match.group(1)
        return html

    def post(self, path: str, fields: dict) -> str:
        data = urllib.parse.urlencode({"_csrf": self.token, **fields}).encode()
        try:
            with self.opener.open(urllib.request.Request(self.base + path, data=data)) as response:
                return response.headers.get("Location", "")
        except urllib.error.HTTPError as error:
            if error.code in (302, 303):
                return error.headers.get("Location", "")
            raise

    def cookie_header(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.jar)

    def sign_up(self, email: str, nickname: str = "bench") -> None:
        self.get("/signup")
        self.post("/signup", {"email": email, "nickname": nickname, "password": "benchmark password",
                              "password_confirm": "benchmark password"})
        self.get("/workspaces")

    def create_workspace(self, name: str) -> tuple[int, int]:
        """Creates a workspace; returns (workspace id, default channel id)."""
        location = self.post("/workspaces", {"name": name, "description": ""})
        wid = int(location.rsplit("/", 1)[-1])
        home = self.get(f"/w/{wid}")
        cid = int(re.search(rf'href="/w/{wid}/c/(\d+)"', home).group(1))
        return wid, cid


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


# ---- sections -----------------------------------------------------------------------------

def thumbnails() -> None:
    say("## Thumbnails of a 12-megapixel JPEG (4000×3000) to 720 px wide")
    say()
    source = OUT / "big-12mp.jpg"
    if not source.exists():
        subprocess.run(["convert-im6.q16", "-size", "4000x3000", "plasma:fractal", "-seed", "42", "-quality", "90",
                        str(source)], check=True)
    target = OUT / "thumb.jpg"
    runs = 7
    rows = []
    inprocess = json.loads(subprocess.run([str(BENCH_TOOL), "thumbnails", str(source), "15"], capture_output=True,
                                          text=True, check=True).stdout)
    extra = (inprocess["rss_after_kb"] - inprocess["rss_before_kb"]) // 1024
    rows.append(("wsx in-process (libvips shim, 15 in a loop)", spread(inprocess["ms"], " ms", 0),
                 f"+{extra} MB over the process ({inprocess['rss_after_kb'] // 1024} MB peak)"))
    for label, command in [
        ("vipsthumbnail (whole process)", ["vipsthumbnail", str(source), "-s", "720x", "-o", f"{target}[Q=82,strip]"]),
        ("ImageMagick convert -thumbnail", ["convert-im6.q16", str(source), "-auto-orient", "-thumbnail", "720x",
                                           "-quality", "82", str(target)]),
        ("ImageMagick with -define jpeg:size=1440x1080", ["convert-im6.q16", "-define", "jpeg:size=1440x1080", str(source),
                                                          "-auto-orient", "-thumbnail", "720x", "-quality", "82", str(target)]),
    ]:
        samples = [timed(command) for _ in range(runs)]
        rows.append((label, spread([s * 1000 for s, _ in samples], " ms", 0),
                     f"{statistics.median([m for _, m in samples])} MB peak (whole process)"))
    say("| tool | time per image, median (min–max) | memory |")
    say("|---|---|---|")
    for row in rows:
        say(f"| {row[0]} | {row[1]} | {row[2]} |")
    say()
    say(f"Reading: in-process wsx takes {statistics.median(inprocess['ms']):.0f} ms per image "
        f"(target ≤ 100 ms) and grows the process by {extra} MB (target ≤ 64 MB).")
    say()


def uploads() -> None:
    say("## Uploads: 100 MB files, release build, over loopback with curl")
    say()
    payload = OUT / "upload-100mb.pdf"
    if not payload.exists() or payload.stat().st_size != 100 * 1024 * 1024:
        with open(payload, "wb") as handle:
            handle.write(b"%PDF-1.4\n")
            handle.write(os.urandom(100 * 1024 * 1024 - 9))
    say("| concurrent uploads | total MB | wall time | throughput (MB/s) | server peak RSS |")
    say("|---|---|---|---|---|")
    for concurrency in (1, 8):
        walls, rates, peaks = [], [], []
        for _ in range(3):
            with Server("--max-file-size", "200MB") as server:
                browser = Browser(server.base)
                browser.sign_up(f"up{concurrency}@example.com")
                wid, cid = browser.create_workspace("Uploads")
                url = f"{server.base}/w/{wid}/c/{cid}/messages"
                before = rss_kb(server.process.pid, "VmHWM")
                start = time.monotonic()
                curls = [subprocess.Popen(
                    ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Expect:", "-H", f"Cookie: {browser.cookie_header()}",
                     "-H", f"X-CSRF-Token: {browser.token}", "-H", "Accept: application/json",
                     "-F", "content=bench", "-F", f"files=@{payload};filename=big.pdf", url],
                    stdout=subprocess.PIPE, text=True) for _ in range(concurrency)]
                codes = [c.communicate()[0] for c in curls]
                wall = time.monotonic() - start
                if any(code != "201" for code in codes):
                    raise RuntimeError(f"upload failed: {codes}")
                walls.append(wall)
                rates.append(100 * concurrency / wall)
                peaks.append(max(rss_kb(server.process.pid, "VmHWM"), before) / 1024)
        say(f"| {concurrency} | {100 * concurrency} | {spread(walls, ' s', 2)} | {spread(rates, '', 0)} | "
            f"{spread(peaks, ' MB', 0)} |")
    say()
    say("Reading: throughput is bytes received, parsed, hashed, sniffed and written to disk per wall second; "
        "peak RSS is the server's high-water mark, which stays flat whatever the file size (files stream to disk).")
    say()


def cold_start() -> None:
    say("## Cold start: process start to the first 200 from /healthz")
    say()
    samples = []
    for _ in range(7):
        data = Path(tempfile.mkdtemp(prefix="wsx-cold-"))
        start = time.monotonic()
        process = subprocess.Popen([str(BINARY), "serve", "--port", "18099", "--data-dir", str(data)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while True:
            try:
                with urllib.request.urlopen("http://127.0.0.1:18099/healthz", timeout=1) as response:
                    if response.status == 200:
                        break
            except OSError:
                time.sleep(0.002)
        samples.append((time.monotonic() - start) * 1000)
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=10)
        shutil.rmtree(data, ignore_errors=True)
    say(f"Fresh data folder (database created and migrated): {spread(samples, ' ms', 0)} over 7 starts.")
    say()


def seeded(messages: int, members: int = 20) -> Path:
    """A data folder seeded by `wsx-web seed` (kept between runs in bench/out)."""
    folder = OUT / f"seed-{messages}-{members}"
    if not (folder / "wsx.sqlite").exists():
        shutil.rmtree(folder, ignore_errors=True)
        started = time.monotonic()
        subprocess.run([str(BINARY), "seed", "--data-dir", str(folder), "--messages", str(messages), "--members", str(members)],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        print(f"(seeded {messages} messages in {time.monotonic() - started:.0f} s)", flush=True)
    return folder


class SeededServer(Server):
    """A release server on a copy of a seeded data folder."""

    def __init__(self, folder: Path, *flags: str):
        copy = Path(tempfile.mkdtemp(prefix="wsx-bench-"))
        shutil.copytree(folder, copy, dirs_exist_ok=True)
        self.data = copy
        self.process = subprocess.Popen(
            [str(BINARY), "serve", "--port", "0", "--data-dir", str(copy), "--log-level", "error", *BULK_FLAGS, *flags],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.port = int(re.search(r":(\d+)", self.process.stdout.readline()).group(1))
        self.base = f"http://127.0.0.1:{self.port}"


def signed_in(base: str, member: int = 1) -> Browser:
    browser = Browser(base)
    browser.get("/login")
    browser.post("/login", {"email": f"member{member}@example.com", "password": "benchmark password"})
    browser.get("/workspaces")
    return browser


def wrk(url: str, connections: int, seconds: int, cookie: str, method: str = "", body: str = "", headers: str = "",
        unique: bool = False) -> dict:
    """With `unique`, each request adds `?fresh=N` to the path, so none can be a page the server kept."""
    env = dict(os.environ, WRK_HEADERS=f"Cookie: {cookie}" + (("\n" + headers) if headers else ""))
    if method:
        env["WRK_METHOD"], env["WRK_BODY"] = method, body
    if unique:
        env["WRK_UNIQUE"] = "1"
    result = subprocess.run(["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--timeout", "10s",
                             "-s", str(ROOT / "bench" / "wrk-report.lua"), url],
                            capture_output=True, text=True, env=env, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def pages() -> None:
    say("## Pages: requests/s and latency (wrk, one thread, 10 s per run, 3 runs)")
    say()
    folder = seeded(20_000)
    with SeededServer(folder) as server:
        browser = signed_in(server.base)
        workspace = re.search(r'href="/w/(\d+)"', browser.get("/workspaces")).group(1)
        home = browser.get(f"/w/{workspace}")
        channel = re.search(rf'href="(/w/{workspace}/c/\d+)"', home).group(1)
        assert browser.get(channel).count('class="message"') == 50
        say("| route | clients | requests/s | p50 | p99 | p99.9 | server CPU per request | errors |")
        say("|---|---|---|---|---|---|---|---|")
        ceiling = {}
        routes = [("/healthz (framework ceiling)", "/healthz", False),
                  ("channel page, 50 messages, kept (nothing written since)", channel, False),
                  ("channel page, 50 messages, rendered (a new address each request)", channel, True),
                  ("workspace home, kept", f"/w/{workspace}", False),
                  ("workspace home, rendered", f"/w/{workspace}", True)]
        for label, path, unique in routes:
            for clients in (16, 64):
                runs = [wrk_costed(server.process.pid, server.base + path, clients, 10, browser.cookie_header(),
                                   unique=unique) for _ in range(3)]
                rps = [r["rps"] for r in runs]
                if path == "/healthz":
                    ceiling[clients] = statistics.median(rps)
                say(f"| {label} | {clients} | {spread(rps, '', 0)} | {spread([r['p50'] for r in runs], ' ms', 2)} | "
                    f"{spread([r['p99'] for r in runs], ' ms', 2)} | {spread([r['p999'] for r in runs], ' ms', 2)} | "
                    f"{spread([r['cpu_us'] for r in runs], ' µs', 0)} | {sum(r['errors'] for r in runs)} |")
                if path == channel:
                    CHANNEL_PAGE[(unique, clients)] = (statistics.median(rps), statistics.median(rps) / ceiling[clients],
                                                     statistics.median([r["p99"] for r in runs]))
        say()
        kept, rendered = CHANNEL_PAGE[(False, 16)], CHANNEL_PAGE[(True, 16)]
        say(f"Reading: with 16 clients a kept channel page runs at {kept[0]:,.0f} req/s, {kept[1]:.0%} of the /healthz "
            f"ceiling, p99 {kept[2]:.2f} ms; one that must be rendered at {rendered[0]:,.0f} req/s ({rendered[1]:.0%}), "
            f"p99 {rendered[2]:.2f} ms. Target ≥ 10,000 req/s and ≥ 50% of the ceiling, p99 ≤ 5 ms at 16 clients. "
            "A page is kept per session and address until a commit changes something it read (a post, a read "
            "marker, an edit, a rename): reloads, other tabs and going back to a channel while the team is quiet are kept "
            "pages. A rendered page still finds what it reads kept when nothing it shows has changed (the "
            "messages listed, read markers, the sidebar's lists), and then opens no read transaction; the "
            "next table measures the page right after a teammate's post, when those reads are made again. "
            "A kept page can beat the ceiling: /healthz asks the database a trivial query, a kept page asks it nothing.")
        say()
        while_posting(server, browser, signed_in(server.base, 2), channel)


def while_posting(server: "Server", reader: Browser, poster: Browser, channel: str) -> None:
    """The rendered channel page under wrk while a teammate posts to the same channel at a steady rate:
    each post changes what the page lists, its read markers and badges, so those reads are made again."""
    import threading
    say("### The rendered channel page while a teammate posts (wrk, 16 clients, 10 s, 3 runs per rate)")
    say()
    poster.get(channel)

    def post(marker: str) -> None:
        data = urllib.parse.urlencode({"content": marker}).encode()
        urllib.request.urlopen(urllib.request.Request(server.base + channel + "/messages", data=data, headers={
            "Cookie": poster.cookie_header(), "X-CSRF-Token": poster.token, "Accept": "application/json"})).read()

    say("| posts/s to the channel | page requests/s | p50 | p99 | server CPU per request (posts included) |")
    say("|---|---|---|---|---|")
    for rate in (0, 10, 100):
        runs, posted = [], []
        for _ in range(3):
            stop, count = threading.Event(), [0]

            def keep_posting() -> None:
                next_at = time.monotonic()
                while rate and not stop.is_set():
                    post(f"while the page is read {count[0]}")
                    count[0] += 1
                    next_at += 1 / rate
                    stop.wait(max(0.0, next_at - time.monotonic()))
            thread = threading.Thread(target=keep_posting)
            thread.start()
            runs.append(wrk_costed(server.process.pid, server.base + channel, 16, 10, reader.cookie_header(), unique=True))
            stop.set()
            thread.join()
            posted.append(count[0] / 10)
        say(f"| {spread(posted, '', 0)} | {spread([r['rps'] for r in runs], '', 0)} | "
            f"{spread([r['p50'] for r in runs], ' ms', 2)} | {spread([r['p99'] for r in runs], ' ms', 2)} | "
            f"{spread([r['cpu_us'] for r in runs], ' µs', 0)} |")
    say()
    say("Reading: every post makes the next view of the page read its messages, read markers and badges again "
        "(and the first one marks the post read, a commit); only the new message's fragment is rendered. "
        "Ten posts a second is a busy team's whole server; a hundred, far more than one channel sees.")
    say()


CHANNEL_PAGE: dict = {}


def posts() -> None:
    import asyncio
    import sqlite3
    from sse_load import close_subscribers, open_subscribers, raise_file_limit
    say("## Posting messages: 16 clients for 10 s while 100 streams listen (3 runs)")
    say()
    raise_file_limit()
    folder = seeded(20_000)
    rows = []
    for _ in range(3):
        with SeededServer(folder) as server:
            browser = signed_in(server.base)
            workspace = re.search(r'href="/w/(\d+)"', browser.get("/workspaces")).group(1)
            channel = re.search(rf'href="(/w/{workspace}/c/\d+)"', browser.get(f"/w/{workspace}")).group(1)
            browser.get(channel)
            database = server.data / "wsx.sqlite"
            before = sqlite3.connect(database).execute("SELECT COUNT(*) FROM messages").fetchone()[0]

            async def run():
                subscribers, _ = await open_subscribers(100, "127.0.0.1", server.port, "/events",
                                                        lambda i: {"Cookie": browser.cookie_header()},
                                                        counting="message.created")
                loop = asyncio.get_running_loop()
                result = await loop.run_in_executor(None, lambda: wrk_costed(
                    server.process.pid, server.base + channel + "/messages", 16, 10, browser.cookie_header(), "POST",
                    "content=benchmark+post", f"X-CSRF-Token: {browser.token}\nAccept: application/json\n"
                    "Content-Type: application/x-www-form-urlencoded"))
                await asyncio.sleep(0.5)
                result["heard"] = min(s.heard for s in subscribers)
                close_subscribers(subscribers)
                return result

            result = asyncio.run(run())
            after = sqlite3.connect(database).execute("SELECT COUNT(*) FROM messages").fetchone()[0]
            acknowledged = result["requests"] - result["errors"]
            rows.append((result, after - before, acknowledged))
    say("| posts/s | p50 | p99 | server CPU per post | acknowledged | stored | check | fewest heard by one stream |")
    say("|---|---|---|---|---|---|---|---|")
    for result, stored, acknowledged in rows:
        # wrk may stop with requests in flight: those were stored but not counted as acknowledged.
        check = "ok" if acknowledged <= stored <= acknowledged + 16 else "MISMATCH"
        heard = "all" if result["heard"] == stored else f"{result['heard']} of {stored}"
        say(f"| {result['rps']:.0f} | {result['p50']:.2f} ms | {result['p99']:.2f} ms | {result['cpu_us']:.0f} µs | {acknowledged} "
            f"| {stored} | {check} | {heard} |")
    say()
    say(f"Reading: median {statistics.median([r['rps'] for r, _, _ in rows]):.0f} posts/s "
        f"(target ≥ 3,000/s with p99 ≤ 20 ms); every acknowledged post stored once (stored − acknowledged ≤ posts in flight), "
        "and each of the 100 streams received every post's message.created (the listeners count those frames "
        "without parsing them, so the load tool takes less of the two cores).")
    say()


def fanout() -> None:
    import asyncio
    from sse_load import raise_file_limit
    say("## SSE fan-out: one post to N open streams (our asyncio load tool; nginx + nchan as the reference)")
    say()
    raise_file_limit(70000)
    folder = seeded(1_000, members=50)
    say("| server | streams | at the socket: p50 | p99 | max | deliveries/s | read by the tool: p50 | p99 | RSS per stream |")
    say("|---|---|---|---|---|---|---|---|---|")
    for count in (1_000, 10_000):
        for name, measure in (("wsx", measure_wsx_fanout), ("nginx + nchan", measure_nchan_fanout)):
            runs = [asyncio.run(measure(count, folder)) for _ in range(3)]
            column = lambda key, unit=" ms", digits=1: spread([r[key] for r in runs], unit, digits)
            rate = spread([count / (r["max"] / 1000) for r in runs], "", 0)
            say(f"| {name} | {count:,} | {column('p50')} | {column('p99')} | {column('max')} | {rate} | "
                f"{column('read_p50')} | {column('read_p99')} | {column('rss_per_stream_kb', ' KB')} |")
    say()
    say("Reading: each run sends one untimed event first (a running server is warm: connections, prepared statements, "
        "caches), then times a second; latency is from just before it is sent. \"At the socket\" is when the event's bytes reached each "
        "subscriber's socket (the kernel's receive timestamp, SO_TIMESTAMPNS): what a browser on its own machine would "
        "see. \"Read by the tool\" is when our one Python process read them; it shares the two cores with the server, "
        "so at 10,000 streams its own reading takes much of that time (a server that writes from both cores at once "
        "also delays the reader more than one that writes from one). Same tool for both servers. RSS per stream is "
        "the server's resident memory growth divided by the stream count.")
    say()


async def measure_wsx_fanout(count: int, folder: Path) -> dict:
    import asyncio
    from sse_load import open_subscribers, warm_then_time
    server = SeededServer(folder)
    try:
        users = [signed_in(server.base, member) for member in range(1, 51)]
        workspace = re.search(r'href="/w/(\d+)"', users[0].get("/workspaces")).group(1)
        channel = re.search(rf'href="(/w/{workspace}/c/\d+)"', users[0].get(f"/w/{workspace}")).group(1)
        users[0].get(channel)
        before = rss_kb(server.process.pid)
        subscribers, tally = await open_subscribers(count, "127.0.0.1", server.port, "/events",
                                                    lambda i: {"Cookie": users[i % len(users)].cookie_header()})
        await asyncio.sleep(1)
        after = rss_kb(server.process.pid)
        poster = users[0]

        def publish_for(marker: str):
            data = urllib.parse.urlencode({"content": marker}).encode()
            request = urllib.request.Request(server.base + channel + "/messages", data=data, headers={
                "Cookie": poster.cookie_header(), "X-CSRF-Token": poster.token, "Accept": "application/json"})
            return lambda: urllib.request.urlopen(request).read()
        delays = await warm_then_time(publish_for, subscribers, tally)
        return latency_summary(delays, (after - before) / count)
    finally:
        server.stop()


async def measure_nchan_fanout(count: int, folder: Path) -> dict:
    import asyncio
    from sse_load import open_subscribers, warm_then_time
    prefix = Path(tempfile.mkdtemp(prefix="nchan-"))
    port = 18190
    (prefix / "logs").mkdir()
    (prefix / "nginx.conf").write_text(f"""
load_module /usr/lib/nginx/modules/ngx_nchan_module.so;
worker_processes 1;
worker_rlimit_nofile 70000;
pid {prefix}/nginx.pid;
error_log {prefix}/logs/error.log error;
events {{ worker_connections 30000; }}
http {{
    access_log off;
    server {{
        listen 127.0.0.1:{port};
        location = /sub {{ nchan_subscriber eventsource; nchan_channel_id bench; }}
        location = /pub {{ nchan_publisher; nchan_channel_id bench; }}
    }}
}}
""")
    process = subprocess.Popen(["nginx", "-p", str(prefix), "-c", str(prefix / "nginx.conf"), "-g", "daemon off;"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        workers = [int(p) for p in subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True, text=True).stdout.split()]
        memory = lambda: sum(rss_kb(pid) for pid in workers + [process.pid])
        before = memory()
        subscribers, tally = await open_subscribers(count, "127.0.0.1", port, "/sub", lambda i: {})
        await asyncio.sleep(1)
        after = memory()
        def publish_for(marker: str):
            body = (marker + " " + "x" * 180).encode()
            publish = urllib.request.Request(f"http://127.0.0.1:{port}/pub", data=body, method="POST")
            return lambda: urllib.request.urlopen(publish).read()
        delays = await warm_then_time(publish_for, subscribers, tally)
        return latency_summary(delays, (after - before) / count)
    finally:
        process.send_signal(signal.SIGQUIT)
        process.wait(timeout=10)
        shutil.rmtree(prefix, ignore_errors=True)


def latency_summary(delays: tuple[list[float], list[float]], rss_per_stream_kb: float) -> dict:
    """p50/p99/max in ms of the socket arrivals, and the same of the tool's reads (`read_` keys)."""
    summary = {"rss_per_stream_kb": rss_per_stream_kb}
    for prefix, values in zip(("", "read_"), delays):
        latencies = sorted(value * 1000 for value in values)
        summary.update({prefix + "p50": latencies[len(latencies) // 2],
                        prefix + "p99": latencies[int(len(latencies) * 0.99) - 1], prefix + "max": latencies[-1]})
    return summary


def search() -> None:
    say("## Search on 1,000,000 messages of mixed Korean and English (HTTP, the whole results page)")
    say()
    folder = seeded(1_000_000)
    size = (folder / "wsx.sqlite").stat().st_size // (1024 * 1024)
    classes = {
        "1 syllable": ["회", "의", "일", "서", "버"],
        "2 syllables": ["회의", "내일", "서버", "일정", "배포"],
        "3 syllables": ["회의를", "프로젝", "보고서", "테스트", "회의실"],
        "English word": ["report", "deploy", "meet", "review", "schedule"],
    }
    with SeededServer(folder) as server:
        browser = signed_in(server.base)
        workspace = re.search(r'href="/w/(\d+)"', browser.get("/workspaces")).group(1)
        say(f"Database: {size} MB. Each query class: 5 queries × 40 requests, sequential (a new connection each, as urllib does).")
        say()
        say("| query | p50 | p99 | max | results shown |")
        say("|---|---|---|---|---|")
        for label, terms in classes.items():
            latencies, shown = [], []
            for term in terms:
                path = f"/w/{workspace}/search?q=" + urllib.parse.quote(term)
                for _ in range(40):
                    start = time.monotonic()
                    html = browser.get(path)
                    latencies.append((time.monotonic() - start) * 1000)
                shown.append(html.count('class="message-result"'))
            latencies.sort()
            say(f"| {label} ({', '.join(terms)}) | {latencies[len(latencies) // 2]:.1f} ms | "
                f"{latencies[int(len(latencies) * 0.99) - 1]:.1f} ms | {latencies[-1]:.1f} ms | {min(shown)}–{max(shown)} |")
        say()
        say("Reading: newest-first keyset paging keeps one-syllable queries (which match most messages) as fast as "
            "rare ones; target p99 ≤ 20 ms.")
        say()


def pathological() -> None:
    """Texts built to make a text pass slow (issue: a quadratic link pass inside the shared write made
    another person's 4-byte post take 4.5 s): each is posted alone, then six at a time in a loop while a
    teammate posts a short message once after another."""
    import threading
    say("## Pathological texts: posting them, and a teammate's short post meanwhile")
    say()
    texts = {
        "`https://a` + 4,990 `)`": "https://a" + ")" * 4990,
        "2,500 × `@ `": "@ " * 2500,
        "550 × `(https://`": "(https://" * 550,
        "500 × `@멤버1 `": "@멤버1 " * 500,
        "`https://a` + 2,495 `(` + 2,495 `)`": "https://a" + "(" * 2495 + ")" * 2495,
    }
    folder = seeded(1_000, members=50)
    with SeededServer(folder) as server:
        attacker, teammate = signed_in(server.base, 1), signed_in(server.base, 2)
        workspace = re.search(r'href="/w/(\d+)"', attacker.get("/workspaces")).group(1)
        channel = re.search(rf'href="(/w/{workspace}/c/\d+)"', attacker.get(f"/w/{workspace}")).group(1)
        attacker.get(channel)
        teammate.get(channel)

        def post(browser: Browser, text: str) -> float:
            data = urllib.parse.urlencode({"content": text}).encode()
            start = time.monotonic()
            urllib.request.urlopen(urllib.request.Request(server.base + channel + "/messages", data=data, headers={
                "Cookie": browser.cookie_header(), "X-CSRF-Token": browser.token, "Accept": "application/json"})).read()
            return (time.monotonic() - start) * 1000

        say("| text | one post alone, median (min–max) | short post while 6 of these are in flight: p50 | p99 | max |")
        say("|---|---|---|---|---|")
        for label, text in texts.items():
            alone = [post(attacker, text) for _ in range(7)]
            stop = threading.Event()

            def flood() -> None:
                while not stop.is_set():
                    post(attacker, text)
            threads = [threading.Thread(target=flood) for _ in range(6)]
            for thread in threads:
                thread.start()
            short = []
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                short.append(post(teammate, "ok"))
            stop.set()
            for thread in threads:
                thread.join()
            short.sort()
            say(f"| {label} | {spread(alone, ' ms', 1)} | {short[len(short) // 2]:.1f} ms | "
                f"{short[max(0, int(len(short) * 0.99) - 1)]:.1f} ms | {short[-1]:.1f} ms |")
    say()
    say("Reading: every text pass (links, mentions) is linear and runs before the write transaction, so a "
        "5,000-character text costs about what its length suggests and a teammate's post waits only for the "
        "writer's turn, not for someone else's rendering.")
    say()


def cluster() -> None:
    """One node on SQLite, one node on PostgreSQL, two nodes on one PostgreSQL: posting with
    listeners on every node, and one post's fan-out to 1,000 streams spread over the nodes."""
    import asyncio
    from sse_load import raise_file_limit
    sys.path.insert(0, str(ROOT / "Tests" / "support"))
    from throwaway_postgres import Postgres
    say("## SQLite, PostgreSQL, two nodes on PostgreSQL: posts and fan-out (3 runs each)")
    say()
    raise_file_limit(70000)
    folder = seeded(1_000, members=50)
    postgres = Postgres()
    results: dict[str, list[dict]] = {}
    try:
        for setup, nodes in (("1 node, SQLite", 0), ("1 node, PostgreSQL", 1), ("2 nodes, PostgreSQL", 2)):
            for run in range(3):
                servers, count_messages = cluster_setup(folder, postgres, nodes, f"bench_{nodes}_{run}")
                try:
                    measured = cluster_posts(servers, count_messages, postgres if nodes else None)
                    measured.update(asyncio.run(cluster_fanout(servers, 1_000)))
                    results.setdefault(setup, []).append(measured)
                finally:
                    for server in servers:
                        server.stop()
    finally:
        postgres.stop()
    say("| setup | posts/s | p99 | CPU per post (wsx + PostgreSQL) | of it wsx | stored = acknowledged | every listener heard all "
        "| fan-out to 1,000: p50 | p99 | p99 of streams on the other node |")
    say("|---|---|---|---|---|---|---|---|---|---|")
    for setup, runs in results.items():
        column = lambda key, unit=" ms", digits=1: spread([r[key] for r in runs], unit, digits)
        other = column("other_p99") if all(r["other_p99"] is not None for r in runs) else "—"
        say(f"| {setup} | {column('rps', '', 0)} | {column('p99')} | {column('cpu_us', ' µs', 0)} | {column('wsx_us', ' µs', 0)} "
            f"| {'yes' if all(r['stored_ok'] for r in runs) else 'NO'} | {'yes' if all(r['heard_all'] for r in runs) else 'NO'} "
            f"| {column('fan_p50')} | {column('fan_p99')} | {other} |")
    say()
    say("Reading: the same seeded team (1,000 messages, 50 members) on each setup; the PostgreSQL setups get it with "
        "`wsx-web copy`. Posting: 16 wrk connections for 10 s (split evenly over the nodes) while 100 streams listen "
        "(split likewise); CPU per post adds the wsx processes' and PostgreSQL's. Fan-out: one post on the first node, "
        "timed to each of 1,000 streams as the kernel received it; the last column is the streams on the second node, "
        "which hear of the post through PostgreSQL's NOTIFY. Everything shares the two cores: two nodes cannot show "
        "throughput scaling here (bench/README.md estimates it for N machines).")
    say()


def cluster_setup(folder: Path, postgres, nodes: int, database: str):
    """The servers of one setup and a way to count the stored messages."""
    import sqlite3
    if nodes == 0:
        server = SeededServer(folder)
        return [server], lambda: sqlite3.connect(server.data / "wsx.sqlite").execute("SELECT COUNT(*) FROM messages").fetchone()[0]
    url = postgres.create_database(database)
    source = Path(tempfile.mkdtemp(prefix="wsx-bench-copy-"))
    files = Path(tempfile.mkdtemp(prefix="wsx-bench-files-"))
    shutil.copytree(folder, source, dirs_exist_ok=True)
    subprocess.run([str(BINARY), "copy", "--from", str(source), "--to", url, "--files-dir", str(files)],
                   check=True, stdout=subprocess.DEVNULL)
    shutil.rmtree(source, ignore_errors=True)
    servers = [Server("--database", url, "--files-dir", str(files)) for _ in range(nodes)]
    return servers, lambda: int(postgres.sql(database, "SELECT COUNT(*) FROM messages"))


def cluster_posts(servers: list, count_messages, postgres) -> dict:
    import asyncio
    from concurrent.futures import ThreadPoolExecutor
    from sse_load import close_subscribers, open_subscribers
    browsers = [signed_in(server.base) for server in servers]
    workspace = re.search(r'href="/w/(\d+)"', browsers[0].get("/workspaces")).group(1)
    channel = re.search(rf'href="(/w/{workspace}/c/\d+)"', browsers[0].get(f"/w/{workspace}")).group(1)
    for browser in browsers:
        browser.get(channel)
    before = count_messages()
    pids = lambda: [s.process.pid for s in servers] + (postgres.server_pids() if postgres else [])

    async def run():
        listeners = []
        for index, server in enumerate(servers):
            opened, _ = await open_subscribers(100 // len(servers), "127.0.0.1", server.port, "/events",
                                               lambda i, b=browsers[index]: {"Cookie": b.cookie_header()}, counting="message.created")
            listeners += opened
        cpu_before = sum(cpu_seconds(pid) for pid in pids())
        wsx_before = sum(cpu_seconds(s.process.pid) for s in servers)
        loop = asyncio.get_running_loop()
        with ThreadPoolExecutor(len(servers)) as pool:
            runs = await asyncio.gather(*(loop.run_in_executor(pool, lambda s=server, b=browser: wrk(
                s.base + channel + "/messages", 16 // len(servers), 10, b.cookie_header(), "POST", "content=benchmark+post",
                f"X-CSRF-Token: {b.token}\nAccept: application/json\nContent-Type: application/x-www-form-urlencoded"))
                for server, browser in zip(servers, browsers)))
        cpu = sum(cpu_seconds(pid) for pid in pids()) - cpu_before
        wsx_cpu = sum(cpu_seconds(s.process.pid) for s in servers) - wsx_before
        await asyncio.sleep(1)
        heard = min(listener.heard for listener in listeners)
        close_subscribers(listeners)
        return runs, cpu, wsx_cpu, heard

    runs, cpu, wsx_cpu, heard = asyncio.run(run())
    stored = count_messages() - before
    acknowledged = sum(r["requests"] - r["errors"] for r in runs)
    return {"rps": sum(r["rps"] for r in runs), "p99": max(r["p99"] for r in runs), "cpu_us": cpu / max(stored, 1) * 1e6,
            "wsx_us": wsx_cpu / max(stored, 1) * 1e6,
            "stored_ok": acknowledged <= stored <= acknowledged + 16, "heard_all": heard == stored}


async def cluster_fanout(servers: list, count: int) -> dict:
    """One post on the first node to `count` streams spread over every node."""
    import asyncio
    from sse_load import Subscriber, Watch, close_subscribers, warm_then_time
    users = [signed_in(servers[0].base, member) for member in range(1, 51)]
    workspace = re.search(r'href="/w/(\d+)"', users[0].get("/workspaces")).group(1)
    channel = re.search(rf'href="(/w/{workspace}/c/\d+)"', users[0].get(f"/w/{workspace}")).group(1)
    users[0].get(channel)
    tally = Watch(count)
    # Sessions are the database's: a cookie from the first node signs in on every node.
    subscribers = [Subscriber("127.0.0.1", servers[i % len(servers)].port, "/events",
                              {"Cookie": users[i % len(users)].cookie_header()}, None, tally) for i in range(count)]
    for start in range(0, count, 500):
        await asyncio.wait_for(asyncio.gather(*(s.run() for s in subscribers[start:start + 500])), timeout=120)
    failed = [s.failed for s in subscribers if s.failed]
    if failed:
        close_subscribers(subscribers)
        raise RuntimeError(f"{len(failed)} streams failed to open, e.g. {failed[0]}")
    await asyncio.sleep(1)
    poster = users[0]

    def publish_for(marker: str):
        data = urllib.parse.urlencode({"content": marker}).encode()
        request = urllib.request.Request(servers[0].base + channel + "/messages", data=data, headers={
            "Cookie": poster.cookie_header(), "X-CSRF-Token": poster.token, "Accept": "application/json"})
        return lambda: urllib.request.urlopen(request).read()
    socket_delays, _ = await warm_then_time(publish_for, subscribers, tally)
    milliseconds = sorted(d * 1000 for d in socket_delays)
    other = sorted(d * 1000 for i, d in enumerate(socket_delays) if i % len(servers) == 1)
    percentile = lambda values, q: values[min(len(values) - 1, int(q * len(values)))]
    return {"fan_p50": percentile(milliseconds, 0.5), "fan_p99": percentile(milliseconds, 0.99),
            "other_p99": percentile(other, 0.99) if other else None}


SECTIONS = {"thumbnails": thumbnails, "uploads": uploads, "cold_start": cold_start, "pages": pages, "posts": posts,
            "fanout": fanout, "search": search, "pathological": pathological, "cluster": cluster}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(ROOT / "bench"))
    chosen = sys.argv[1:] or list(SECTIONS)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), "unknown CPU")
    memory = int(Path("/proc/meminfo").read_text().split()[1]) // (1024 * 1024)
    say("# wsx benchmark results")
    say()
    say(f"- Date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; commit {commit}")
    say(f"- Machine: {os.cpu_count()} cores ({cpu}), {memory} GiB; Debian 12; release build; "
        "load tools share the same cores as the server")
    say()
    for name in chosen:
        SECTIONS[name]()
    # Only a run of every section replaces the committed figures; a partial run goes to bench/out/.
    target = ROOT / "bench" / "RESULTS.md" if chosen == list(SECTIONS) else OUT / f"RESULTS-{'-'.join(chosen)}.md"
    target.write_text("\n".join(RESULTS) + "\n")
    print(f"wrote {target.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
