"""``errdex site serve`` against odd requests and idle clients, over real sockets on 127.0.0.1."""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from errdex.site.serve import running_site


def _ask(server: Any, request: bytes, *, timeout: float = 5.0) -> bytes:
    """Send a raw request and read the whole answer."""
    with socket.create_connection(server.server_address[:2], timeout=timeout) as client:
        client.sendall(request)
        chunks = []
        while chunk := client.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def _status(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


def _get(server: Any, path: bytes) -> int:
    return _status(_ask(server, b"GET " + path + b" HTTP/1.0\r\n\r\n"))


@pytest.mark.parametrize(("path", "status"), [
    (b"/index.html", 200),
    (b"/x%00", 400),
    (b"/x\x00y", 400),
    (b"/%zz", 400),
    (b"/a%2", 400),
    (b"/%ff%fe", 400),
    (b"/%1b%5b2J", 400),
    (b"/../../etc/passwd", 400),
    (b"/%2e%2e/%2e%2e/etc/passwd", 400),
    (b"/assets/..%2f..%2f..%2fetc%2fpasswd", 400),
    (b"/" + b"a" * 5000, 414),
    (b"/" + b"a/" * 3000, 414),
    (b"http://example.org/index.html", 400),
    (b"/no/such/page", 404),
])
def test_odd_requests_get_a_plain_answer_and_no_traceback(served: Any, capfd: pytest.CaptureFixture[str],
                                                          path: bytes, status: int) -> None:
    assert _get(served, path) == status
    assert _get(served, b"/index.html") == 200  # and the server goes on
    captured = capfd.readouterr()
    assert captured.err == "" and captured.out == ""


def test_a_link_out_of_the_folder_is_not_followed(built_site: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(built_site, site)
    secret = tmp_path / "secret.txt"
    secret.write_text("not for the web")
    (site / "leak.txt").symlink_to(secret)
    with running_site(site) as server:
        answer = _ask(server, b"GET /leak.txt HTTP/1.0\r\n\r\n")
    assert _status(answer) == 404 and b"not for the web" not in answer


def test_idle_connections_are_bounded_and_dropped(built_site: Path) -> None:
    before = threading.active_count()
    with running_site(built_site, max_connections=16, timeout=2.0) as server:
        idle = [socket.create_connection(server.server_address[:2], timeout=10) for _ in range(300)]
        try:
            assert threading.active_count() <= before + 1 + 16  # the server's thread and one per slot
            answers = [client.recv(65536)[:12] for client in idle]  # none is left hanging
        finally:
            for client in idle:
                client.close()
        assert set(answers) <= {b"HTTP/1.0 503", b""}
        assert answers.count(b"") >= 16  # served, then dropped for saying nothing
        assert answers.count(b"HTTP/1.0 503") >= 200  # beyond the bound: refused at once
        assert _get(server, b"/index.html") == 200


def test_serve_refuses_a_folder_that_holds_no_site(cli: Any, tmp_path: Path) -> None:
    os.chdir(tmp_path)
    result = cli("site", "serve", "--dir", "nope", "--port", "0")
    assert result.exit_code == 1 and result.stderr.count("\n") == 1 and "nope: no such folder" in result.stderr
    (tmp_path / "empty").mkdir()
    result = cli("site", "serve", "--dir", "empty", "--port", "0")
    assert result.exit_code == 1 and "empty: no built site here" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty"]


def _trickle(address: tuple[str, int], request: bytes, *, every: float, within: float) -> float | None:
    """Send the request a byte at a time; the seconds until the server closed the connection (None: it never did)."""
    started = time.monotonic()
    with socket.create_connection(address, timeout=within) as client:
        for byte in request:
            if time.monotonic() - started > within:
                return None
            try:
                client.send(bytes([byte]))
                client.settimeout(every)
                if client.recv(1) == b"":
                    return time.monotonic() - started
            except TimeoutError:
                continue  # nothing from the server yet: go on trickling
            except OSError:
                return time.monotonic() - started
    return None


def test_a_request_trickled_in_a_byte_at_a_time_is_dropped_at_the_timeout(built_site: Path) -> None:
    """Each byte comes well within the per-read timeout, but the request as a whole is late: dropped."""
    with running_site(built_site, timeout=0.5) as server:
        # the whole request takes 20 s to trickle in: closed within the first 5, the server did not wait for it
        closed = _trickle(server.server_address[:2], b"GET /index.html HTTP/1.0\r\nX-Slow: " + b"a" * 200,
                          every=0.1, within=5)
        assert closed is not None, "the server kept reading the trickled request"
        assert _get(server, b"/index.html") == 200


def test_hidden_files_and_other_hosts_are_not_served(built_site: Path, tmp_path: Path) -> None:
    """A page on the web that rebinds its name to 127.0.0.1 sends its own Host: it must not read the folder; and
    the hidden files of a folder served with --dir (.git, .env) are not served to anyone."""
    site = tmp_path / "site"
    shutil.copytree(built_site, site)
    (site / ".env").write_text("TOKEN=secret")
    (site / ".git").mkdir()
    (site / ".git" / "config").write_text("[remote] url = secret")
    with running_site(site) as server:
        port = server.server_address[1]
        for path in (b"/.env", b"/.git/config", b"/%2eenv", b"/.errdex-site", b"/assets/../.env"):
            answer = _ask(server, b"GET " + path + b" HTTP/1.0\r\n\r\n")
            assert _status(answer) in (400, 404) and b"secret" not in answer, path
        for host in (b"evil.example", b"evil.example:%d" % port, b"127.0.0.1.evil.example", b"localhost.evil"):
            answer = _ask(server, b"GET /index.html HTTP/1.1\r\nHost: " + host + b"\r\n\r\n")
            assert _status(answer) == 421 and b"<main" not in answer, host
        for host in (b"127.0.0.1:%d" % port, b"localhost:%d" % port, b"LOCALHOST", b"[::1]:%d" % port):
            assert _status(_ask(server, b"GET /index.html HTTP/1.1\r\nHost: " + host + b"\r\n\r\n")) == 200, host
        assert _get(server, b"/index.html") == 200  # HTTP/1.0 without a Host


def _site_with_hostile_names(built_site: Path, tmp_path: Path) -> Path:
    """A copy of the site with what a folder may hold besides it: hidden files, links in and out, a folder with no
    index.html, a FIFO that nobody writes to, a 404.html that is a link out."""
    site = tmp_path / "site"
    shutil.copytree(built_site, site)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret outside")
    (site / "files").mkdir()
    (site / "files" / ".env-secret-name").write_text("secret hidden")
    (site / "files" / "data.json").write_text("{}")
    (site / "files" / "out").symlink_to(outside)
    (site / "files" / "in.html").symlink_to(site / "index.html")
    (site / "withindex").mkdir()
    (site / "withindex" / "index.html").write_text("<p>the folder's page</p>")
    os.mkfifo(site / "fifo.html")
    os.mkfifo(site / "files" / "index.html")
    return site


def test_no_listings_no_hidden_names_no_links_out_and_no_fifo(built_site: Path, tmp_path: Path) -> None:
    """Folders were listed (``GET /api/`` showed ``.env-secret-name`` and link names), and a FIFO held a thread
    for good: a folder is its index.html or 404, and only regular files inside the folder are served."""
    site = _site_with_hostile_names(built_site, tmp_path)
    with running_site(site, timeout=2.0) as server:
        for path in (b"/files/", b"/files", b"/assets/", b"/files/out/", b"/files/out/secret.txt", b"/fifo.html",
                     b"/index.html/",
                     b"/files/.env-secret-name", b"/files/%2eenv-secret-name", b"/files/index.html"):
            answer = _ask(server, b"GET " + path + b" HTTP/1.0\r\n\r\n")
            assert _status(answer) == 404, path
            assert b"secret" not in answer and b"data.json" not in answer and b"Directory listing" not in answer
        assert _get(server, b"/files/data.json") == 200 and _get(server, b"/files/in.html") == 200
        answer = _ask(server, b"GET /withindex/ HTTP/1.0\r\n\r\n")
        assert _status(answer) == 200 and answer.endswith(b"<p>the folder's page</p>")
        answer = _ask(server, b"GET /withindex?x=1 HTTP/1.0\r\n\r\n")
        assert _status(answer) == 301 and b"\r\nLocation: /withindex/\r\n" in answer
        (site / "404.html").unlink()
        (site / "404.html").symlink_to(tmp_path / "outside" / "secret.txt")
        answer = _ask(server, b"GET /nothing HTTP/1.0\r\n\r\n")
        assert _status(answer) == 404 and b"secret" not in answer


def test_methods_head_and_ranges(served: Any) -> None:
    whole = _ask(served, b"GET /index.html HTTP/1.0\r\n\r\n")
    head, body = whole.split(b"\r\n\r\n", 1)
    assert f"Content-Length: {len(body)}".encode() in head and b"Python" not in head
    answer = _ask(served, b"HEAD /index.html HTTP/1.0\r\n\r\n")
    assert answer == answer.split(b"\r\n\r\n")[0] + b"\r\n\r\n" and _status(answer) == 200
    ranged = _ask(served, b"GET /index.html HTTP/1.0\r\nRange: bytes=0-9\r\n\r\n")
    assert _status(ranged) == 200 and ranged.endswith(body) and b"Accept-Ranges: none" in ranged  # Range ignored
    for method in (b"POST", b"PUT", b"DELETE", b"OPTIONS", b"TRACE", b"PATCH", b"CONNECT", b"BREW"):
        answer = _ask(served, method + b" /index.html HTTP/1.0\r\nContent-Length: 5\r\n\r\nhello")
        assert _status(answer) == 405 and b"\r\nAllow: GET, HEAD\r\n" in answer, method
    assert _get(served, b"/index.html") == 200
