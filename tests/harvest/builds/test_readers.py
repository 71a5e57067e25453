"""Each build-file reader on small inputs shaped as the real ones, and on the real trees."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from errdex.harvest.builds import Build, is_build_file, read_builds, source_builds
from errdex.harvest.builds.paths import platform_of_path, role_of_path

REPOS = Path(__file__).resolve().parents[4] / "shared" / "data" / "repos"


def _builds(files: dict[str, str]):
    return read_builds((path, text.encode()) for path, text in files.items())


def test_a_makefile_links_objects_and_the_library_every_program_links() -> None:
    builds = _builds({"Makefile.in": (
        "LIBSSH_OBJS=packet.o \\\n\tlog.o\nSSHDOBJS=sshd.o auth.o\nSSHKEYSCAN_OBJS=ssh-keyscan.o\n"
        "EXEEXT=@EXEEXT@\nlibssh.a: $(LIBSSH_OBJS)\n\t$(AR) rv $@ $(LIBSSH_OBJS)\n"
        "sshd$(EXEEXT): libssh.a $(SSHDOBJS)\n\t$(LD) -o $@ $(SSHDOBJS) -lssh\n"
        "ssh-keyscan$(EXEEXT): libssh.a $(SSHKEYSCAN_OBJS)\n\t$(LD) -o $@ $(SSHKEYSCAN_OBJS) -lssh\n"
        "install: sshd$(EXEEXT)\n\tcp sshd $(DESTDIR)\n"),
        "regress/unittests/Makefile": "PROG=test_log\nSRCS=test_log.c\n"})
    assert builds.of("sshd.c") == Build(("sshd",))
    assert builds.of("ssh-keyscan.c").programs == ("ssh-keyscan",)
    assert builds.of("packet.c").programs == ("ssh-keyscan", "sshd")
    assert builds.of("regress/unittests/test_log.c") == Build(("test_log",), None, "test")
    assert builds.of("other.c") == Build()


def test_a_program_installed_as_a_copy_of_another_shares_its_sources() -> None:
    builds = _builds({"src/Makefile": (
        "REDIS_SERVER_NAME=redis-server$(PROG_SUFFIX)\nREDIS_SENTINEL_NAME=redis-sentinel$(PROG_SUFFIX)\n"
        "REDIS_SERVER_OBJ=server.o anet.o\nREDIS_CLI_OBJ=anet.o redis-cli.o\n"
        "$(REDIS_SERVER_NAME): $(REDIS_SERVER_OBJ)\n\t$(REDIS_LD) -o $@ $^ ../deps/lua/src/liblua.a\n"
        "$(REDIS_SENTINEL_NAME): $(REDIS_SERVER_NAME)\n\t$(REDIS_INSTALL) $(REDIS_SERVER_NAME) $(REDIS_SENTINEL_NAME)\n"
        "redis-cli: $(REDIS_CLI_OBJ)\n\t$(REDIS_LD) -o $@ $^\n"
        "bench: $(REDIS_SERVER_NAME)\n\t./$(REDIS_SERVER_NAME)\n")})
    assert builds.of("src/server.c").programs == ("redis-sentinel", "redis-server")
    assert builds.of("src/anet.c").programs == ("redis-cli", "redis-sentinel", "redis-server")
    assert builds.of("src/redis-cli.c").programs == ("redis-cli",)


def test_nginx_auto_scripts_name_one_program_and_each_platform() -> None:
    builds = _builds({
        "auto/options": "NGX_SBIN_PATH=${NGX_SBIN_PATH:-sbin/nginx}\n",
        "auto/sources": ('CORE_SRCS="src/core/nginx.c \\\n   src/core/ngx_log.c"\n'
                         'UNIX_SRCS="$CORE_SRCS src/os/unix/ngx_process_cycle.c"\n'
                         "WIN32_SRCS=\"$CORE_SRCS src/os/win32/ngx_process_cycle.c\"\n"
                         "EPOLL_SRCS=src/event/modules/ngx_epoll_module.c\n"),
        "auto/modules": '        ngx_module_srcs="src/http/ngx_http_request.c"\n'})
    assert builds.of("src/core/nginx.c") == Build(("nginx",))
    assert builds.of("src/os/win32/ngx_process_cycle.c") == Build(("nginx",), "win32")
    assert builds.of("src/os/unix/ngx_process_cycle.c") == Build(("nginx",), "unix")
    assert builds.of("src/event/modules/ngx_epoll_module.c").platform == "linux"
    assert builds.of("src/http/ngx_http_request.c").programs == ("nginx",)


def test_cmake_targets_and_the_libraries_they_link() -> None:
    builds = _builds({"CMakeLists.txt": (
        "set(CORE_SOURCES core/log.c core/net.c)\nadd_library(core STATIC ${CORE_SOURCES})\n"
        "add_executable(server server/main.c)\ntarget_link_libraries(server PRIVATE core)\n"
        "add_executable(winsvc WIN32 win/service.c)\ntarget_link_libraries(winsvc core)\n")})
    assert builds.of("core/log.c").programs == ("server", "winsvc")
    assert builds.of("server/main.c") == Build(("server",))
    assert builds.of("win/service.c") == Build(("winsvc",), "win32")


def test_python_projects_and_java_modules_name_their_folders() -> None:
    builds = _builds({
        "pyproject.toml": '[project]\nname = "tool"\n[project.scripts]\ntool-cli = "tool.cli:main"\n',
        "svc/pom.xml": ("<project><parent><artifactId>parent</artifactId></parent>"
                        "<artifactId>svc-core</artifactId><dependencies><dependency><artifactId>log4j"
                        "</artifactId></dependency></dependencies></project>"),
        "zk/build.xml": '<project name="ZooKeeper" default="jar">'})
    assert builds.of("src/tool/cli.py").programs == ("tool", "tool-cli")
    assert builds.of("src/tool/util.py").programs == ("tool",)
    assert builds.of("svc/src/main/java/org/a/Svc.java").programs == ("svc-core",)
    assert builds.of("zk/src/java/main/org/apache/zookeeper/ZooKeeper.java").programs == ("ZooKeeper",)


@pytest.mark.parametrize(("path", "platform", "role"), [
    ("src/os/win32/ngx_files.c", "win32", "main"),
    ("openbsd-compat/port-aix.c", "aix", "main"),
    ("sandbox-solaris.c", "solaris", "main"),
    ("openbsd-compat/bsd-misc.c", None, "main"),  # code for other systems, not for OpenBSD
    ("regress/netcat.c", None, "test"),
    ("contrib/win32/x.c", "win32", "contrib"),
    ("src/redis-cli.c", None, "main"),
])
def test_what_a_path_says(path: str, platform: str | None, role: str) -> None:
    assert (platform_of_path(path), role_of_path(path)) == (platform, role)


def test_hostile_build_files_end_quickly() -> None:
    recursive = "A=$(B) $(B)\nB=$(A) $(A)\nprog: $(A) x.o\n\t$(LD) -o $@ $^\n"
    deep = "<project>" + "<a>" * 50_000 + "<artifactId>x</artifactId>"
    builds = _builds({"Makefile": recursive, "pom.xml": deep, "CMakeLists.txt": "set(A ${A}${A})\n" * 200})
    assert builds.of("x.c").programs == ("prog",)


def _tree(repo: str, rev: str) -> list[tuple[str, bytes]]:
    git = ["git", "-C", str(REPOS / repo)]
    names = subprocess.run([*git, "ls-tree", "-r", "-z", "--name-only", rev], capture_output=True, check=True)
    paths = [p for p in names.stdout.decode().split("\0") if p and is_build_file(p)]
    return [(p, subprocess.run([*git, "show", f"{rev}:{p}"], capture_output=True, check=True).stdout) for p in paths]


@pytest.mark.skipif(not REPOS.is_dir(), reason="the real trees are not here")
def test_the_real_trees() -> None:
    openssh = source_builds(REPOS / "openssh-portable.git", rev="V_9_2_P1")
    assert openssh.of("sshd.c") == Build(("sshd",))
    assert openssh.of("monitor.c").programs == ("sshd",)
    assert openssh.of("ssh-keyscan.c").programs == ("ssh-keyscan",)
    assert "sshd" in openssh.of("kex.c").programs and "ssh-keyscan" in openssh.of("kex.c").programs
    assert "sshd" not in openssh.of("regress/netcat.c").programs and openssh.of("regress/netcat.c").role == "test"
    nginx = read_builds(_tree("nginx.git", "release-1.22.1"))
    assert nginx.of("src/os/win32/ngx_process_cycle.c") == Build(("nginx",), "win32")
    assert nginx.of("src/os/unix/ngx_process_cycle.c").platform == "unix"
    redis = read_builds(_tree("redis.git", "7.0.15"))
    assert redis.of("src/redis-cli.c").programs == ("redis-cli",)
    assert "redis-server" in redis.of("src/server.c").programs and "redis-cli" not in redis.of("src/server.c").programs
    assert read_builds(_tree("urllib3.git", "2.7.0")).of("src/urllib3/connectionpool.py").programs == ("urllib3",)
    assert read_builds(_tree("requests.git", "v2.34.2")).of("src/requests/adapters.py").programs == ("requests",)
    zookeeper = read_builds(_tree("zookeeper.git", "release-3.4.5"))
    assert zookeeper.of("src/java/main/org/apache/zookeeper/server/quorum/QuorumPeer.java").programs == ("ZooKeeper",)
