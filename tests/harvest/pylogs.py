"""A real Python workload and its real logs, with Python's own record of which statement wrote each line.

pip (the venv's own copy) runs a fixed set of offline commands (``install`` of a wheel built here into a
``--target``, ``download``, ``list``, ``show``, ``freeze``, ``check``, ``uninstall``...) at ``-vvv`` in a
subprocess, with a root handler at DEBUG that writes each record twice: to the log, in a usual format
(``%(asctime)s %(levelname)s %(name)s: %(message)s``), and to the truth, as one JSON line naming the log's
line number, ``pathname`` and ``lineno``. A record of several lines (a message with newlines, a traceback)
is traced by its first line; the lines after it are not counted.

    PYTHONPATH=toolkit:. .venv/bin/python -m tests.harvest.pylogs OUT_DIR
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

__all__ = ["ASYNCIO_DRIVER", "DRIVER", "HANDLER", "PARAMIKO_DRIVER", "build_wheel", "run_asyncio_workload",
           "run_paramiko_workload", "run_pip_workload"]

#: The handler every workload's subprocess logs through: each record to the log and its origin to the truth.
HANDLER = r'''
import json, logging, sys

LOG, TRUTH = open(sys.argv[1], "w", encoding="utf-8"), open(sys.argv[2], "w", encoding="utf-8")
FORMAT = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")


class Twice(logging.Handler):
    lines = 0

    def emit(self, record):
        written = FORMAT.format(record)
        truth = {"line": Twice.lines + 1, "path": record.pathname, "lineno": record.lineno, "logger": record.name}
        frame = sys._getframe(1)
        while frame is not None and frame.f_code.co_filename != record.pathname:
            frame = frame.f_back
        caller = frame
        while caller is not None and caller.f_back is not None and _forwards(caller, record.msg):
            # a wrapper (``def write_output(msg, *args): logger.info(msg, *args)``, paramiko's ``self._log(level,
            # msg)`` forwarding to another, ``"[chan " + self._name + "] " + msg``): its caller wrote the text
            caller = caller.f_back
        if caller is not frame and caller is not None:
            truth["caller"] = [caller.f_code.co_filename, caller.f_lineno]
        TRUTH.write(json.dumps(truth) + "\n")
        LOG.write(written + "\n")
        Twice.lines += written.count("\n") + 1


def _forwards(frame, message):
    code = frame.f_code
    values = [frame.f_locals.get(name) for name in code.co_varnames[:code.co_argcount]]
    if code.co_flags & 4:  # *args
        values.extend(frame.f_locals.get(code.co_varnames[code.co_argcount + code.co_kwonlyargcount]) or ())
    return any(_passed(value, message) for value in values)


def _passed(value, message):
    # the message itself, or a phrase the wrapper puts a prefix before ("[chan 0] " + msg); not a word that
    # a message of the wrapper's own ends with ("HostKey: " + local)
    return value is message or (isinstance(value, str) and isinstance(message, str) and " " in value.strip()
                                and message.endswith(value))


HANDLER = Twice(logging.DEBUG)
'''

#: pip's own logging set up as usual, then the handler added to its root logger, for each command.
DRIVER = HANDLER + r'''
from pip._internal.utils import logging as pip_logging
setup = pip_logging.setup_logging


def setup_logging(*args, **kwargs):
    level = setup(*args, **kwargs)
    logging.getLogger().addHandler(HANDLER)
    return level


pip_logging.setup_logging = setup_logging
import pip._internal.cli.base_command as base_command  # it imported the name
base_command.setup_logging = setup_logging
from pip._internal.cli.main import main
import functools, http.server, threading


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=sys.argv[4]))
threading.Thread(target=server.serve_forever, daemon=True).start()
index = f"http://127.0.0.1:{server.server_address[1]}/simple/"
for command in json.loads(sys.argv[3]):
    main([index if part == "{index}" else part for part in command])
    logging.getLogger().removeHandler(HANDLER)
server.shutdown()
LOG.close()
TRUTH.close()
'''


def build_wheel(folder: Path, name: str = "errdexdemo", version: str = "1.0") -> Path:
    """A small pure-Python wheel, byte-identical from run to run (fixed dates, sorted members)."""
    folder.mkdir(parents=True, exist_ok=True)
    info = f"{name}-{version}.dist-info"
    files = {
        f"{name}/__init__.py": "VALUE = 1\n",
        f"{name}/tool.py": "def main():\n    return 0\n",
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: demo\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: errdex-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{info}/entry_points.txt": f"[console_scripts]\n{name} = {name}.tool:main\n",
    }
    record = []
    for member, body in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(body.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{member},sha256={digest},{len(body.encode())}")
    record.append(f"{info}/RECORD,,")
    files[f"{info}/RECORD"] = "\n".join(record) + "\n"
    wheel = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, body in files.items():
            archive.writestr(zipfile.ZipInfo(member, (2020, 1, 1, 0, 0, 0)), body)
    return wheel


def run_pip_workload(work: Path, python: str = sys.executable) -> tuple[Path, Path]:
    """Run the pip commands in ``work``; (log, truth) paths."""
    wheels, served = work / "wheels", work / "served"
    build_wheel(wheels)
    build_wheel(wheels, version="1.1")
    build_wheel(served / "simple" / "errdexdemo")
    build_wheel(served / "simple" / "errdexdemo", version="1.1")
    target, downloads, log, truth = work / "target", work / "downloads", work / "pip.log", work / "truth.jsonl"
    common = ["--disable-pip-version-check", "--no-input", "--no-color", "-vvv"]
    offline = ["--no-index", "--find-links", str(wheels), "--no-cache-dir"]
    served_index = ["--index-url", "{index}", "--retries", "0", "--timeout", "5"]
    commands = [
        ["install", *common, *offline, "--target", str(target), "errdexdemo==1.0"],
        ["install", *common, *offline, "--target", str(target), "--upgrade", "errdexdemo"],
        ["install", *common, *offline, "--target", str(target), "no-such-package-errdex"],
        ["download", *common, *offline, "--dest", str(downloads), "errdexdemo"],
        ["download", *common, *offline, "--dest", str(downloads), "errdexdemo==1.0"],
        ["list", *common, "--path", str(target)],
        ["list", *common, "--path", str(target), "--format", "json"],
        ["show", *common, "--files", "errdexdemo"],
        ["freeze", *common, "--path", str(target)],
        ["check", *common],
        ["inspect", *common, "--path", str(target)],
        ["hash", *common, str(downloads / "errdexdemo-1.1-py3-none-any.whl")],
        ["config", *common, "list"],
        ["install", *common, *offline, "--dry-run", "--report", str(work / "report.json"), "errdexdemo"],
        # through an index on 127.0.0.1 (http.server's listing of a folder is a simple index), with a cache
        ["download", *common, *served_index, "--cache-dir", str(work / "cache"), "--dest", str(work / "d1"),
         "errdexdemo==1.0"],
        ["download", *common, *served_index, "--cache-dir", str(work / "cache"), "--dest", str(work / "d2"),
         "errdexdemo==1.0"],
        ["install", *common, *served_index, "--no-cache-dir", "--target", str(work / "t2"), "errdexdemo"],
        ["index", *common, *served_index, "--no-cache-dir", "versions", "errdexdemo"],
        ["install", *common, *served_index, "--no-cache-dir", "--target", str(work / "t3"), "no-such-errdex"],
    ]
    env = {key: value for key, value in os.environ.items() if not key.startswith("PIP_")}
    env.update({"PIP_CONFIG_FILE": os.devnull, "PYTHONHASHSEED": "0", "NO_COLOR": "1", "TERM": "dumb",
                "HOME": str(work), "COLUMNS": "200", "https_proxy": "http://127.0.0.1:9",
                "no_proxy": "127.0.0.1"})  # the index is on 127.0.0.1; nothing else is reachable
    subprocess.run([python, "-c", DRIVER, str(log), str(truth), json.dumps(commands), str(served)], cwd=work, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, timeout=120)
    return log, truth


#: asyncio in debug mode on 127.0.0.1: a server and clients, name resolution, a subprocess, a slow callback,
#: an exception nobody retrieved, a connection refused, and the loop closed.
ASYNCIO_DRIVER = HANDLER + r'''
import asyncio, gc, os, time
logging.getLogger().setLevel(logging.DEBUG)
logging.getLogger().addHandler(HANDLER)
logging.getLogger("asyncio").setLevel(logging.DEBUG)


async def echo(reader, writer):
    data = await reader.read(100)
    writer.write(data)
    await writer.drain()
    writer.close()
    await writer.wait_closed()


async def failing():
    raise ValueError("nobody awaits me")


async def main():
    loop = asyncio.get_running_loop()
    loop.slow_callback_duration = 0.05
    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    for number in range(3):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"hello %d" % number)
        await writer.drain()
        await reader.read(100)
        writer.close()
        await writer.wait_closed()
    await loop.getaddrinfo("127.0.0.1", port)
    process = await asyncio.create_subprocess_exec(sys.executable, "-c", "pass")
    await process.wait()
    loop.call_soon(time.sleep, 0.1)  # a slow callback
    await asyncio.sleep(0.2)
    task = loop.create_task(failing())
    await asyncio.sleep(0)
    del task
    gc.collect()
    try:
        await asyncio.open_connection("127.0.0.1", 9)
    except OSError:
        pass
    server.close()
    await server.wait_closed()


asyncio.run(main(), debug=True)
gc.collect()
LOG.close()
TRUTH.close()
'''


def run_asyncio_workload(work: Path, python: str = sys.executable) -> tuple[Path, Path]:
    """Run the asyncio program in ``work``; (log, truth) paths."""
    log, truth = work / "asyncio.log", work / "asyncio-truth.jsonl"
    env = {**os.environ, "PYTHONASYNCIODEBUG": "1", "PYTHONHASHSEED": "0"}
    subprocess.run([python, "-X", "dev", "-c", ASYNCIO_DRIVER, str(log), str(truth)], cwd=work, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, timeout=60)
    return log, truth


#: paramiko (an SSH library whose classes log through ``self._log(DEBUG, "...")`` methods) on 127.0.0.1: a
#: server thread and a client that fails a password, then logs in and runs a command.
PARAMIKO_DRIVER = HANDLER + r'''
import socket, threading
import paramiko
logging.getLogger().setLevel(logging.DEBUG)
logging.getLogger().addHandler(HANDLER)

key = paramiko.RSAKey.generate(1024)
class Server(paramiko.ServerInterface):
    def check_auth_password(self, username, password):
        return paramiko.AUTH_SUCCESSFUL if password == "right" else paramiko.AUTH_FAILED
    def get_allowed_auths(self, username):
        return "password"
    def check_channel_request(self, kind, chanid):
        return paramiko.OPEN_SUCCEEDED if kind == "session" else paramiko.OPEN_FAILED_ADMINISTRATIVELY_PROHIBITED
    def check_channel_exec_request(self, channel, command):
        asked.set()
        return True


asked = threading.Event()
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(5)
port = listener.getsockname()[1]
transports = []


def serve():
    for _ in range(2):
        conn, _ = listener.accept()
        transport = paramiko.Transport(conn)
        transport.add_server_key(key)
        transport.start_server(server=Server())
        transports.append(transport)
        channel = transport.accept(2)
        if channel is not None and asked.wait(5):
            channel.sendall(b"ran")
            channel.send_exit_status(0)
            channel.close()


server = threading.Thread(target=serve)
server.start()
for password in ("wrong", "right"):
    client = paramiko.SSHClient()
    client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    try:
        client.connect("127.0.0.1", port, username="demo", password=password, look_for_keys=False,
                       allow_agent=False, timeout=5)
        _, out, _ = client.exec_command("hello")
        out.read()
    except paramiko.AuthenticationException:
        pass
    client.close()
server.join()
for transport in transports:
    transport.close()
    transport.join()
logging.getLogger().removeHandler(HANDLER)  # a transport thread may still log as it ends
LOG.close()
TRUTH.close()
'''


def run_paramiko_workload(work: Path, python: str = sys.executable) -> tuple[Path, Path]:
    """Run the paramiko client and server in ``work``; (log, truth) paths."""
    log, truth = work / "paramiko.log", work / "paramiko-truth.jsonl"
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    subprocess.run([python, "-c", PARAMIKO_DRIVER, str(log), str(truth)], cwd=work, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, timeout=60)
    return log, truth


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for path in (*run_pip_workload(args.out.resolve()), *run_asyncio_workload(args.out.resolve()),
                 *run_paramiko_workload(args.out.resolve())):
        print(path)


if __name__ == "__main__":
    main()
