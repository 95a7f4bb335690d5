"""A throwaway PostgreSQL cluster for the browser tests and the benchmarks, started as
Tests/wsx-webTests/Postgres/PostgresTestCluster.swift starts one: `initdb` as the `postgres` user
(it refuses root) in a temporary folder, trust on loopback, no fsync, on a free port; stopped and
removed by `stop`. Standard library only.
"""

import os
import pathlib
import shutil
import socket
import subprocess
import tempfile

TIMEOUT = 60  # seconds for any one tool


class PostgresMissing(Exception):
    """Debian's postgresql is not installed (`make deps` installs it)."""


def binaries() -> pathlib.Path:
    """Debian's newest PostgreSQL's programs."""
    root = pathlib.Path("/usr/lib/postgresql")
    versions = sorted(int(p.name) for p in root.glob("*") if p.name.isdigit() and (p / "bin" / "initdb").is_file())
    if not versions:
        raise PostgresMissing("PostgreSQL is not installed (Debian package postgresql; `make deps` installs it)")
    return root / str(versions[-1]) / "bin"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def run(command: list[str], **options) -> subprocess.CompletedProcess:
    done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT, **options)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done


class Postgres:
    """One cluster; `create_database` gives an address for `--database`."""

    def __init__(self, max_connections: int = 300):
        self.binaries = binaries()
        self.folder = pathlib.Path(tempfile.mkdtemp(prefix="wsx-pg-"))
        self.port = 0
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres")
        self._as_owner("initdb", "-D", str(self.folder / "data"), "-E", "UTF8", "--locale=C.UTF-8", "-A", "trust",
                       "-U", "postgres", "--no-sync")
        for attempt in range(3):
            self.port = free_port()
            try:
                self._as_owner("pg_ctl", "-D", str(self.folder / "data"), "-w", "-t", str(TIMEOUT), "-l", str(self.folder / "log"),
                               "-o", f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off "
                                     f"-c max_connections={max_connections} -c shared_buffers=32MB",
                               "start")
                return
            except RuntimeError:
                if attempt == 2:
                    log = (self.folder / "log").read_text(errors="replace")[-3000:] if (self.folder / "log").exists() else ""
                    raise RuntimeError(f"PostgreSQL did not start:\n{log}") from None

    def _as_owner(self, tool: str, *arguments: str) -> subprocess.CompletedProcess:
        command = [str(self.binaries / tool), *arguments]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--"] + command
        return run(command, cwd="/")

    def sql(self, database: str, statement: str) -> str:
        """Runs one statement; returns its unaligned, tuples-only output."""
        return run([str(self.binaries / "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-d", database,
                    "-v", "ON_ERROR_STOP=1", "-At", "-c", statement]).stdout.strip()

    def create_database(self, name: str) -> str:
        """A new, empty UTF8 database; returns its address for --database."""
        self.sql("postgres", f"CREATE DATABASE {name} ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0")
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"

    def server_pids(self) -> list[int]:
        """The postmaster and every process it started (backends, writers)."""
        pid_file = self.folder / "data" / "postmaster.pid"
        if not pid_file.exists():
            return []
        main = int(pid_file.read_text().split()[0])
        children = subprocess.run(["pgrep", "-P", str(main)], capture_output=True, text=True).stdout.split()
        return [main] + [int(child) for child in children]

    def stop(self) -> None:
        try:
            self._as_owner("pg_ctl", "-D", str(self.folder / "data"), "-m", "immediate", "stop")
        except RuntimeError:
            pass
        shutil.rmtree(self.folder, ignore_errors=True)
