"""Which statement wrote each line the real nginx, redis-server and sshd write in the workloads of
:mod:`tests.harvest.nginxlogs`, :mod:`tests.harvest.redislogs` and :mod:`tests.harvest.sshdlogs`: written by
reading the code at the tag Debian 12 builds (nginx ``release-1.22.1``, redis ``7.0.15``, openssh-portable
``V_9_2_P1``), never by asking errdex.

Each entry is (a regex that finds the line's shape, the spans that are right for it): a span is (file, first line,
last line) of the statement that supplies the message's own text. Where two statements of the tree write the very
same words (nginx's ``"exit"`` of its master and of a worker), a line cannot tell them apart and either is right;
where a message is composed by a wrapper from a literal elsewhere (a ``"\\"%s\\" directive %s"`` whose ``%s`` is a
handler's ``return "invalid number"``), both the wrapper's statement and the literal's are right. Lines no
statement of the program wrote (libc, the kernel) match an entry of ``OTHERS`` and are counted apart.
"""

from __future__ import annotations

import re

__all__ = ["OTHERS", "TRUTH"]

Span = tuple[str, int, int]
Entry = tuple[str, tuple[Span, ...]]

_CORE = "src/core/"
_UNIX = "src/os/unix/"
_HTTP = "src/http/"
_UP = "src/http/ngx_http_upstream.c"
_CONF = "src/core/ngx_conf_file.c"
_PROC = "src/os/unix/ngx_process.c"
_CYCLE = "src/os/unix/ngx_process_cycle.c"

NGINX: list[Entry] = [
    (r'\[notice\] .*: using the "epoll" event method$', (("src/event/ngx_event.c", 485, 486),)),
    # NGINX_VER_BUILD, a macro of core/nginx.h ("nginx/" NGINX_VERSION), is the whole format
    (r"\[notice\] .*: nginx/1\.22\.1$", ((_UNIX + "ngx_posix_init.c", 101, 101),)),
    (r"\[notice\] .*: OS: Linux ", ((_UNIX + "ngx_linux_init.c", 58, 59),)),
    (r"\[notice\] .*: getrlimit\(RLIMIT_NOFILE\): \d+:\d+$", ((_UNIX + "ngx_posix_init.c", 111, 113),)),
    (r"\[notice\] .*: start worker processes$", ((_CYCLE, 340, 340),)),
    # "start %s %P": the %s is "worker process", the name ngx_start_worker_processes passes to ngx_spawn_process
    (r"\[notice\] .*: start worker process \d+$", ((_PROC, 206, 206),)),
    # ngx_connection_error appends " (111: Connection refused)"; the request's log handler the context
    (r"\[error\] .*: \*\d+ connect\(\) failed \(111: Connection refused\) while connecting to upstream",
     ((_UP, 2773, 2773),)),
    # ngx_http_upstream_next(..., NGX_HTTP_UPSTREAM_FT_TIMEOUT) on the read timer of the response header
    (r"\[error\] .*: \*\d+ upstream timed out \(110: Connection timed out\) while reading response header",
     ((_UP, 4306, 4307),)),
    (r"\[error\] .*: \*\d+ upstream sent too big header while", ((_UP, 2461, 2462),)),
    (r"\[error\] .*: \*\d+ upstream prematurely closed connection while reading response header",
     ((_UP, 2437, 2438),)),
    (r"\[error\] .*: \*\d+ client intended to send too large body: \d+ bytes", ((_HTTP + "ngx_http_core_module.c",
                                                                                990, 992),)),
    # "%s \"%s\" failed": of.failed is "open()" (ngx_open_file_n, set by ngx_open_cached_file)
    (r'\[error\] .*: \*\d+ open\(\) ".*" failed \(2: No such file or directory\), client',
     ((_HTTP + "modules/ngx_http_static_module.c", 137, 138),)),
    (r'\[error\] .*: \*\d+ limiting requests, excess: [\d.]+ by zone "perip"',
     ((_HTTP + "modules/ngx_http_limit_req_module.c", 269, 273),)),
    (r'\[error\] .*: \*\d+ limiting connections by zone "addr"',
     ((_HTTP + "modules/ngx_http_limit_conn_module.c", 268, 271),)),
    (r'\[error\] .*: \*\d+ directory index of ".*" is forbidden', ((_HTTP + "ngx_http_core_module.c", 1287, 1288),)),
    (r"\[error\] .*: \*\d+ access forbidden by rule", ((_HTTP + "modules/ngx_http_access_module.c", 284, 285),)),
    (r'\[error\] .*: \*\d+ rewrite or internal redirection cycle while processing "/cycle"',
     ((_HTTP + "ngx_http_core_module.c", 1069, 1071),)),
    # the message is an element of ngx_http_client_errors[], logged as the format of a call with no literal
    (r"\[info\] .*: \*\d+ client sent invalid method while reading client request line",
     ((_HTTP + "ngx_http_request.c", 71, 71), (_HTTP + "ngx_http_request.c", 1174, 1175))),
    (r"\[info\] .*: \*\d+ client closed connection while waiting for request",
     ((_HTTP + "ngx_http_request.c", 463, 464),)),
    (r"\[info\] .*: \*\d+ client sent plain HTTP request to HTTPS port", ((_HTTP + "ngx_http_request.c", 2048, 2049),)),
    # ngx_ssl_connection_error appends " (SSL: error:...)" from OpenSSL's error queue
    (r"\[info\] .*: \*\d+ SSL_do_handshake\(\) failed \(SSL: .*\) while SSL handshaking",
     (("src/event/ngx_event_openssl.c", 1857, 1857),)),
    (r"\[info\] .*: \*\d+ epoll_wait\(\) reported that client prematurely closed connection, so upstream",
     ((_UP, 1430, 1432),)),
    # "signal %d (%s) received from %P%s": %s is the action (", reconfiguring", ", shutting down" or "")
    (r"\[notice\] .*: signal \d+ \(SIG\w+\) received from \d+", ((_PROC, 445, 447),)),
    (r"\[notice\] .*: signal \d+ \(SIG\w+\) received$", ((_PROC, 450, 452),)),
    (r"\[notice\] .*: reconfiguring$", ((_CYCLE, 223, 223),)),
    (r"\[notice\] .*: gracefully shutting down$", ((_CYCLE, 730, 731),)),
    # the worker's two "exiting" (on quit, on terminate) and the master's and a worker's "exit" say the same
    (r"\[notice\] .*: exiting$", ((_CYCLE, 714, 714), (_CYCLE, 724, 724))),
    (r"\[notice\] .*: exit$", ((_CYCLE, 662, 662), (_CYCLE, 1003, 1003))),
    (r"\[notice\] .*: worker process \d+ exited with code \d+$", ((_PROC, 546, 548),)),
    (r"\[alert\] .*: worker process \d+ exited on signal 9$", ((_PROC, 535, 538),)),
    (r"\[emerg\] .*: bind\(\) to 127\.0\.0\.1:\d+ failed \(98: Address already in use\)$",
     ((_CORE + "ngx_connection.c", 608, 609),)),
    (r"\[emerg\] .*: still could not bind\(\)$", ((_CORE + "ngx_connection.c", 707, 707),)),
    # nginx -t: ngx_log_stderr prints "nginx: " before the message
    (r"^nginx: the configuration file .* syntax is ok$", ((_CORE + "ngx_cycle.c", 291, 292),)),
    (r"^nginx: configuration file .* test is successful$", ((_CORE + "nginx.c", 304, 305),)),
    (r"^nginx: configuration file .* test failed$", ((_CORE + "nginx.c", 295, 296),)),
    # ngx_conf_log_error appends " in FILE:LINE"; its messages also go to stderr, after "nginx: "
    (r'^nginx: \[emerg\] unknown directive "bogus_directive" in ', ((_CONF, 487, 488),)),
    # "\"%s\" directive %s": the handler's return value is the %s
    (r'^nginx: \[emerg\] "worker_processes" directive invalid value in ',
     ((_CONF, 473, 474), (_CORE + "nginx.c", 1522, 1522))),
    (r'^nginx: \[emerg\] "keepalive_requests" directive invalid number in ',
     ((_CONF, 473, 474), (_CONF, 1185, 1185))),
    (r'^nginx: \[emerg\] "client_max_body_size" directive invalid value in ',
     ((_CONF, 473, 474), (_CONF, 1247, 1247))),
    (r'^nginx: \[emerg\] "events" directive is duplicate in ',
     ((_CONF, 473, 474), ("src/event/ngx_event.c", 965, 965))),
    (r'^nginx: \[emerg\] unexpected end of file, expecting "}" in ', ((_CONF, 272, 273),)),
    # ngx_open_file_n is the macro "open()" of os/unix/ngx_files.h
    (r'^nginx: \[emerg\] open\(\) ".*" failed \(2: No such file or directory\) in ', ((_CONF, 183, 185),)),
]

_S = "src/server.c"
_NET = "src/networking.c"
_REPL = "src/replication.c"
_RDB = "src/rdb.c"
_AOF = "src/aof.c"
_R = r"^\d+:[CMSX] \d+ \w+ \d+ [\d:.]+ [#*.-] "  # redis's "PID:ROLE DATE LEVEL " before every logged message

REDIS: list[Entry] = [
    (_R + "oO0OoO0OoO0Oo Redis is starting", ((_S, 7077, 7077),)),
    (_R + r"Redis version=7\.0\.15, bits=64, commit=\w+, modified=\d, pid=\d+, just started$", ((_S, 7078, 7084),)),
    (_R + "Configuration loaded$", ((_S, 7089, 7089),)),
    (_R + r"You requested maxclients of \d+ requiring at least \d+ max file descriptors\.$", ((_S, 2225, 2228),)),
    (_R + r"Server can't set maximum open files to \d+ because of OS error: ", ((_S, 2229, 2231),)),
    (_R + r"Current maximum open files is \d+\. maxclients has been reduced to \d+", ((_S, 2232, 2236),)),
    # "monotonic clock: %s": the %s is monotonicInit()'s literal
    (_R + "monotonic clock: POSIX clock_gettime$", ((_S, 2511, 2511), ("src/monotonic.c", 152, 152))),
    (_R + r"Running mode=standalone, port=\d+\.$", ((_S, 6229, 6232),)),
    (_R + "Server initialized$", ((_S, 7100, 7100),)),
    # "WARNING %s": the text is checkOvercommit's sdsnew() of syscheck.c
    (_R + "WARNING Memory overcommit must be enabled!", ((_S, 6134, 6134), ("src/syscheck.c", 154, 160))),
    (_R + "Ready to accept connections$", ((_S, 7142, 7142),)),
    # the plain and the TLS accept handlers say the same
    (_R + r"Accepted 127\.0\.0\.1:\d+$", ((_NET, 1374, 1374), (_NET, 1394, 1394))),
    (_R + r"Protocol error \(invalid bulk length\) from client: id=", ((_NET, 2246, 2247),)),
    (_R + "Possible SECURITY ATTACK detected", ((_NET, 3553, 3553),)),
    (_R + "Client closed connection id=", ((_NET, 2681, 2681),)),
    # closeClientOnOutputBufferLimitReached; AddReplyFromClient says the same
    (_R + r"Client id=\d+ .* scheduled to be closed ASAP for overcoming of output buffer limits\.$",
     ((_NET, 3827, 3829), (_NET, 1141, 1141))),
    (_R + "Before turning into a replica, using my own master parameters", ((_REPL, 3302, 3305),)),
    # replicationSetMaster; replicationCron says the same
    (_R + r"Connecting to MASTER 127\.0\.0\.1:\d+$", ((_REPL, 3004, 3005), (_REPL, 3600, 3601))),
    (_R + "MASTER <-> REPLICA sync started$", ((_REPL, 2897, 2897),)),
    (_R + r"REPLICAOF 127\.0\.0\.1:\d+ enabled \(user request from 'id=", ((_REPL, 3145, 3146),)),
    (_R + "Error condition on socket for SYNC: Connection refused$", ((_REPL, 2585, 2586),)),
    (_R + r"Discarding previously cached master state\.$", ((_REPL, 3331, 3331),)),
    (_R + "Setting secondary replication ID to ", ((_REPL, 1675, 1675),)),
    (_R + r"MASTER MODE enabled \(user request from 'id=", ((_REPL, 3111, 3112),)),
    (_R + r"Failed opening the temp RDB file temp-\d+\.rdb \(in server root dir .*\) for saving: Is a directory$",
     ((_RDB, 1406, 1411),)),
    (_R + "DB saved on disk$", ((_RDB, 1451, 1451),)),
    (_R + r"User requested shutdown\.\.\.$", ((_S, 4097, 4097),)),
    (_R + r"Saving the final RDB snapshot before exiting\.$", ((_S, 4251, 4251),)),
    (_R + r"Calling fsync\(\) on the AOF file\.$", ((_S, 4241, 4241),)),
    (_R + r"Redis is now ready to exit, bye bye\.\.\.$", ((_S, 4301, 4302),)),
    (_R + r"Loading RDB produced by version 7\.0\.15$", ((_RDB, 3018, 3019),)),
    (_R + r"RDB age \d+ seconds$", ((_RDB, 3023, 3024),)),
    (_R + r"RDB memory usage when created [\d.]+ Mb$", ((_RDB, 3027, 3028),)),
    (_R + r"Done loading RDB, keys loaded: \d+, keys expired: \d+\.$", ((_RDB, 3227, 3229),)),
    (_R + r"DB loaded from disk: [\d.]+ seconds$", ((_S, 6605, 6606),)),
    (_R + r"DB \d+: \d+ keys \(\d+ volatile\) in \d+ slots HT\.$", ((_S, 1294, 1294),)),
    # sigShutdownHandler picks the literal (6315), serverLogFromHandler(LL_WARNING, msg) writes it (6333, with its
    # own prefix), as loadServerConfigFromString's err below
    (r"^\d+:signal-handler \(\d+\) Received SIGTERM scheduling shutdown\.\.\.$", ((_S, 6315, 6315), (_S, 6333, 6333))),
    # loadServerConfigFromString's loaderr: fprintf to stderr; the reason is a literal assigned before the goto
    (r"^\*\*\* FATAL CONFIG FILE ERROR \(Redis 7\.0\.15\) \*\*\*$", (("src/config.c", 621, 622),)),
    (r"^Reading the configuration file, at line \d+$", (("src/config.c", 624, 624),)),
    (r"^>>> 'bogus-directive yes'$", (("src/config.c", 625, 625),)),
    (r"^Bad directive or wrong number of arguments$", (("src/config.c", 587, 587), ("src/config.c", 627, 627))),
    (_R + r"Module /nonexistent/errdex-module\.so failed to load: ", (("src/module.c", 11279, 11279),)),
    (_R + r"Can't load module from /nonexistent/errdex-module\.so: server aborting$",
     (("src/module.c", 11103, 11105),)),
    (_R + "Wrong signature trying to load DB from file$", ((_RDB, 2911, 2911),)),
    (_R + r"Fatal error loading the DB: Invalid argument\. Exiting\.$", ((_S, 6641, 6641),)),
    (_R + r"Short read or OOM loading DB\. Unrecoverable error, aborting now\.$", ((_RDB, 3238, 3239),)),
    # rdbReportReadError(...) is a macro of rdbReportError, which snprintf()s this prefix before the reason
    # (Debian's rdb.c is patched: the line it names differs from the tag's 3240)
    (_R + r"Internal error in RDB reading offset \d+, function at rdb\.c:\d+ -> Unexpected EOF reading RDB file$",
     ((_RDB, 3240, 3240), (_RDB, 69, 71))),
    (_R + "Bad file format reading the append only file appendonly", ((_AOF, 1620, 1621),)),
    (_R + r"!!! Warning: short read while loading the AOF file ", ((_AOF, 1589, 1589),)),
    (_R + r"!!! Truncating the AOF \S+ at offset \d+ !!!$", ((_AOF, 1590, 1591),)),
    (_R + r"AOF \S+ loaded anyway because aof-load-truncated is enabled$", ((_AOF, 1606, 1607),)),
    (_R + r"DB loaded from incr file \S+: [\d.]+ seconds$", ((_AOF, 1722, 1723),)),
    (_R + r"DB loaded from append only file: [\d.]+ seconds$", ((_S, 6592, 6592),)),
    (_R + r"Opening AOF incr file \S+ on server start$", ((_AOF, 764, 764),)),
    # aofLoadManifestFromFile's loaderr: each serverLog's message begins or ends with a line break, which leaves
    # lines of their own ("*** FATAL ..." under an empty prefixed one)
    (r"^\*\*\* FATAL AOF MANIFEST FILE ERROR \*\*\*$", ((_AOF, 375, 375),)),
    (_R + r"Reading the manifest file, at line \d+$", ((_AOF, 377, 377),)),
    (_R + r">>> 'this is no manifest line'$", ((_AOF, 378, 378),)),
    (_R + "Invalid AOF manifest file format$", ((_AOF, 310, 310), (_AOF, 380, 380))),
]

_PK = "packet.c"
_ID = r"(authenticating |invalid )?user \S+ 127\.0\.0\.1 port \d+"  # sshpkt_fmt_connection_id's words for the peer

#: sshd -E LOG writes each message as it is, with no time or tag; the privilege-separated child's messages reach
#: the log through the monitor, which adds " [preauth]" (monitor.c:458); the ``_f`` macros of log.h put the
#: function's name and ": " before the message.
SSHD: list[Entry] = [
    (r"^Server listening on 127\.0\.0\.1 port \d+\.$", (("sshd.c", 1085, 1088),)),
    (r'^Connection from 127\.0\.0\.1 port \d+ on 127\.0\.0\.1 port \d+ rdomain ""$', (("sshd.c", 2196, 2200),)),
    (r"^kex_exchange_identification: Connection closed by remote host$", (("kex.c", 1296, 1296),)),
    (r'^kex_exchange_identification: client sent invalid protocol identifier "GET / HTTP/1\.1"$',
     (("kex.c", 1338, 1339),)),
    (r"^Protocol major versions differ: 2 vs\. 1$", (("kex.c", 1386, 1387),)),
    # sshpkt_fatal(ssh, r, "banner exchange") in sshd.c; its default case composes "%s%sConnection %s %s" and
    # logdie_r appends ": " and ssh_err(r)'s words
    (r"^banner exchange: Connection from 127\.0\.0\.1 port \d+: (invalid format|could not read protocol version)$",
     (("sshd.c", 2217, 2217), (_PK, 1908, 1910))),
    (r"^Connection closed by 127\.0\.0\.1 port \d+$", ((_PK, 1874, 1874),)),
    (r"^Connection closed by " + _ID + r" \[preauth\]$", ((_PK, 1874, 1874),)),
    (r"^Connection reset by " + _ID + r" \[preauth\]$", ((_PK, 1885, 1885),)),
    (r"^Disconnected from " + _ID + "$", ((_PK, 1881, 1881),)),
    # auth_log's "%s %s%s%s for %s%.100s from ...": authmsg "Failed" or "Accepted", a literal of the same function
    (r"^(Failed|Accepted) (password|publickey) for (invalid user )?\S+ from 127\.0\.0\.1 port \d+ ssh2",
     (("auth.c", 298, 307), ("auth.c", 291, 291))),
    (r"^Invalid user \S+ from 127\.0\.0\.1 port \d+$", (("auth.c", 495, 496),)),
    # NOUSER is the name of the fake account sshd authenticates an invalid user against (auth.c's fakepw)
    (r"^Could not get shadow information for NOUSER$", (("auth-shadow.c", 96, 96),)),
    (r"^maximum authentication attempts exceeded for \S+ from 127\.0\.0\.1 port \d+ ssh2 \[preauth\]$",
     (("auth.c", 339, 344),)),
    # ssh_packet_disconnect's "Disconnecting %s: %.100s", the reason a literal of its caller
    (r"^Disconnecting " + _ID + r": Too many authentication failures \[preauth\]$",
     ((_PK, 1954, 1954), ("auth.c", 345, 345))),
    (r"^Unable to negotiate with 127\.0\.0\.1 port \d+: no matching key exchange method found\. Their offer: ",
     ((_PK, 1896, 1898),)),
    (r"^User child is on pid \d+$", (("sshd.c", 560, 560),)),
    (r"^Received disconnect from 127\.0\.0\.1 port \d+:11: disconnected by errdex$", ((_PK, 1742, 1747),)),
    (r"^Accepted key ED25519 SHA256:\S+ found at \S+:1$", (("auth2-pubkeyfile.c", 334, 335),)),
    (r"^Received signal 15; terminating\.$", (("sshd.c", 1164, 1165),)),
]

TRUTH: dict[str, list[Entry]] = {"nginx": NGINX, "redis": REDIS, "sshd": SSHD}
#: Lines of the workloads that no statement of the program wrote.
OTHERS: dict[str, list[str]] = {"nginx": [], "redis": [], "sshd": []}


def find(program: str, line: str) -> tuple[Span, ...] | None:
    """The right spans for a line of ``program``; () for a line another program wrote; None when unknown."""
    for pattern, spans in TRUTH[program]:
        if re.search(pattern, line):
            return spans
    if any(re.search(pattern, line) for pattern in OTHERS[program]):
        return ()
    return None
