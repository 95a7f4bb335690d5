"""Where a page's server CPU goes: `perf record -g` on the release server while wrk asks for one
page for 10 s, then the samples summed into a few buckets, in µs per request.

    python3 bench/profile.py channel|home|kept|healthz [--top N]

`channel` and `home` ask for a new address each request (`?fresh=N`), so every page is rendered
(its reads still come from memory, as in the `pages` section); `kept` asks for the channel page at
one address, which the server answers with the page it kept. WSX_BENCH_BINARY profiles another
build. Needs Debian's `linux-perf` and `wrk` (`make bench-deps`). A bucket is the first of the
patterns below found anywhere in a sample's stack, so each sample counts once; `--top N` also lists
the N functions that take most samples themselves.
"""
import collections
import re
import shutil
import subprocess
import sys
import tempfile
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
    top = int(sys.argv[sys.argv.index("--top") + 1]) if "--top" in sys.argv else 0
    folder = run.seeded(20_000)
    data = Path(tempfile.mkdtemp(prefix="wsx-profile-"))
    shutil.copytree(folder, data, dirs_exist_ok=True)
    record = data / "perf.data"
    server = subprocess.Popen(
        ["perf", "record", "-F", str(FREQUENCY), "-g", "-o", str(record), "--", str(run.BINARY), "serve", "--port", "0",
         "--data-dir", str(data), "--log-level", "error", *run.BULK_FLAGS],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        port = re.search(r":(\d+)", server.stdout.readline()).group(1)
        base = f"http://127.0.0.1:{port}"
        browser = run.signed_in(base)
        workspace = re.search(r'href="/w/(\d+)"', browser.get("/workspaces")).group(1)
        channel = re.search(rf'href="(/w/{workspace}/c/\d+)"', browser.get(f"/w/{workspace}")).group(1)
        path = {"channel": channel, "kept": channel, "home": f"/w/{workspace}", "healthz": "/healthz"}[mode]
        result = run.wrk(base + path, 16, 10, browser.cookie_header(), unique=mode in ("channel", "home"))
    finally:
        server.send_signal(2)
        server.wait(timeout=60)
    script = subprocess.run(["perf", "script", "-i", str(record), "-F", "ip,sym"], capture_output=True, text=True).stdout
    shutil.rmtree(data)
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
        leaves = collections.Counter(stack[0].split("+")[0] for stack in stacks)
        names = [name for name, _ in leaves.most_common(top)]
        plain = subprocess.run(["swift", "demangle", "--simplified"], input="\n".join(names), capture_output=True,
                               text=True).stdout.splitlines()
        print(f"\nTop {top} functions by their own samples:")
        for name, readable in zip(names, plain):
            print(f"  {leaves[name] / len(stacks):5.1%}  {readable[:160]}")


if __name__ == "__main__":
    main()
