"""nginx with the shipped site config (deploy/nginx/prerender.conf), as a child process with a private prefix:
for `make bench`'s cache-in-front figure and for tests/ops, which run the same file for real."""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHIPPED_CONFIG = ROOT / "deploy" / "nginx" / "prerender.conf"


def find_nginx() -> str | None:
    """Debian installs nginx in /usr/sbin, which a non-root PATH often lacks."""
    found = shutil.which("nginx")
    if found:
        return found
    return "/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


NODE_LINES = (
    "    server 127.0.0.1:8000 max_fails=1 fail_timeout=10s;   # EDIT: node 1\n"
    "    server 127.0.0.1:8010 max_fails=1 fail_timeout=10s;   # EDIT: node 2\n"
)


def render_site(*, upstreams: list[str], port: int, cache_dir: Path, access_log: Path) -> str:
    """The shipped file with its EDIT values replaced (the two nodes' lines by one line per upstream, with the
    same settings); each must be there exactly once, so a change to the file that the test would silently miss
    fails here instead."""
    text = SHIPPED_CONFIG.read_text()
    nodes = "".join(f"    server {upstream} max_fails=1 fail_timeout=10s;\n" for upstream in upstreams)
    replacements = [
        (NODE_LINES, nodes),
        ("proxy_cache_path /var/cache/nginx/prerender ", f"proxy_cache_path {cache_dir} "),
        ("listen 80;", f"listen 127.0.0.1:{port};"),
        ("listen [::]:80;", ""),
        ("/var/log/nginx/prerender.access.log", str(access_log)),
    ]
    for old, new in replacements:
        if text.count(old) != 1:
            raise RuntimeError(f"{SHIPPED_CONFIG}: expected {old!r} exactly once")
        text = text.replace(old, new)
    return text


class NginxFront:
    """nginx with the shipped site config, in the foreground as a child process, stopped by its pid."""

    def __init__(self, binary: str, prefix: Path, *upstream_urls: str, extra_http: str = "") -> None:
        self.binary = binary
        # More configuration in the http block (the bench's static file server).
        self.extra_http = extra_http
        self.prefix = prefix
        # The prerender nodes (one or more).
        self.upstreams = [url.removeprefix("http://").rstrip("/") for url in upstream_urls]
        self.port = free_port()
        self.conf = prefix / "nginx.conf"
        self.error_log = prefix / "error.log"
        self.access_log = prefix / "access.log"
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def write_config(self) -> None:
        temp = self.prefix / "temp"
        for name in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (temp / name).mkdir(parents=True, exist_ok=True)
        site = self.prefix / "prerender.conf"
        site.write_text(self.site_config())
        # Run as whoever runs the tests: as root, workers would otherwise drop to `nobody`, who cannot read
        # pytest's private temporary folders. (For another user nginx ignores `user`, with a warning.)
        user = f"user {pwd.getpwuid(os.geteuid()).pw_name};" if os.geteuid() == 0 else ""
        # worker_connections: Debian's nginx.conf (one worker here; Debian runs one per CPU).
        self.conf.write_text(f"""
{user}
worker_processes 1;
pid {self.prefix}/nginx.pid;
error_log {self.error_log} notice;
events {{ worker_connections 768; }}
http {{
    default_type application/octet-stream;
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
    include {site};
    {self.extra_http}
}}
""")

    def site_config(self) -> str:
        """What goes into the http block: the shipped site config (another file's, in a subclass)."""
        return render_site(
            upstreams=self.upstreams, port=self.port, cache_dir=self.prefix / "cache", access_log=self.access_log
        )

    def command(self, *extra: str) -> list[str]:
        return [self.binary, "-p", str(self.prefix), "-c", str(self.conf), "-e", str(self.error_log), *extra]

    def check(self) -> subprocess.CompletedProcess:
        """`nginx -t`: the rendered configuration is valid."""
        return subprocess.run(self.command("-t"), capture_output=True, text=True, timeout=30)

    def start(self) -> None:
        self.write_config()
        checked = self.check()
        if checked.returncode != 0:
            raise RuntimeError(f"nginx -t refused the configuration: {checked.stderr}")
        with open(self.prefix / "stderr.log", "wb") as stderr:
            self.process = subprocess.Popen(self.command("-g", "daemon off;"), stdout=subprocess.DEVNULL, stderr=stderr)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"nginx exited with {self.process.returncode}: {self.logs()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"nginx did not listen on {self.port}: {self.logs()}")

    def stop(self) -> None:
        """Graceful stop (SIGQUIT) of the master we started, then SIGKILL if it lingers."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGQUIT)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)

    def logs(self) -> str:
        """What nginx said, for failure messages."""
        files = (self.prefix / "stderr.log", self.error_log)
        return "\n".join(path.read_text() for path in files if path.exists())

    def __enter__(self) -> NginxFront:
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()
