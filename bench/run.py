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
BINARY = ROOT / ".build" / "release" / "wsx-web"
BENCH_TOOL = ROOT / ".build" / "release" / "wsx-bench"
RESULTS: list[str] = []


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


class Server:
    """A release wsx-web on a free port with its own data folder."""

    def __init__(self, *flags: str):
        self.data = Path(tempfile.mkdtemp(prefix="wsx-bench-"))
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            [str(BINARY), "serve", "--port", "0", "--data-dir", str(self.data), "--bcrypt-cost", "4",
             "--login-max-failures", "100000", "--login-max-failures-per-ip", "1000000", "--log-level", "error", *flags],
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


SECTIONS = {"thumbnails": thumbnails, "uploads": uploads, "cold_start": cold_start}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
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
    (ROOT / "bench" / "RESULTS.md").write_text("\n".join(RESULTS) + "\n")


if __name__ == "__main__":
    main()
