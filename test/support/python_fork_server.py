"""One /usr/bin/python3 per test run that forks the tests' Python references (test/support/python.ts).

Importing numpy, scipy, MNE and scikit-learn costs one to two seconds of CPU. A process per test
file paid it once per file; this server imports them once, as it starts, and forks a process per
connection, which starts with them loaded. Each connection is a process of its own, so one test
file's calls cannot see another's state; the connection speaks the protocol of python_server.py
(a request a line, an answer a line), after a first line
  {"pid": <the process's id>, "stderr": <the file its stray output goes to>}
so that a client can kill its process and show what it wrote when it died.

  python3 python_fork_server.py SOCKET MODULE...

listens on the unix socket SOCKET (in a directory of the run's own: the stray-output files go
there too), writes "ready" on stdout, imports the MODULEs, and ends at the end of its stdin: its
parent closes it at the end of the run, and the system does when the parent dies. It then kills the processes still
serving (their clients are gone by then), reaps them, so that their CPU time is counted as its own
children's, and removes its directory. Nothing is sent beyond the unix socket.
"""

import contextlib
import ctypes
import gc
import importlib
import json
import os
import selectors
import shutil
import signal
import socket
import sys

from python_server import serve

PR_SET_PDEATHSIG = 1
children = set()


def preload(modules):
    for name in modules:
        importlib.import_module(name)
    # Objects made so far are never collected: the garbage collector of a child does not walk
    # (and so copy) the pages they are on.
    gc.collect()
    gc.freeze()


def reap(*_):
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        children.discard(pid)


def child(listener, conn, directory):
    """The forked process: serves `conn` until its client closes it, then exits."""
    status = 1
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # a reference's own subprocesses are its to wait for
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # gone with the server
        listener.close()
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        stray = os.path.join(directory, f"python-{os.getpid()}.stderr")
        fd = os.open(stray, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(fd, 2)
        os.dup2(fd, 1)
        sys.stdout = sys.stderr
        answers = conn.makefile("w", encoding="utf-8")
        answers.write(json.dumps({"pid": os.getpid(), "stderr": stray}) + "\n")
        answers.flush()
        serve(conn.makefile("r", encoding="utf-8"), answers)
        os.unlink(stray)
        status = 0
    except BaseException:  # noqa: BLE001 - a client gone mid-answer; its file keeps what was printed
        import traceback

        traceback.print_exc()
    finally:
        os._exit(status)


def main(path, modules):
    directory = os.path.dirname(path)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    signal.signal(signal.SIGCHLD, reap)
    events = selectors.DefaultSelector()
    events.register(listener, selectors.EVENT_READ)
    events.register(sys.stdin.buffer.raw, selectors.EVENT_READ)
    print("ready", flush=True)
    # Loaded now, while the run starts its workers, rather than at the first connection: that
    # client would wait for every module, the ones it does not use too. A connection made
    # meanwhile waits in the socket's backlog.
    preload(modules)
    while True:
        for key, _ in events.select():
            if key.fileobj is listener:
                conn, _ = listener.accept()
                # Not reaped before it is known: a pid in `children` is ours to kill.
                signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
                pid = os.fork()
                if pid == 0:
                    child(listener, conn, directory)
                children.add(pid)
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
                conn.close()
            elif os.read(0, 4096) == b"":
                listener.close()
                os.unlink(path)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                for pid in children:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                while True:
                    try:
                        os.wait()
                    except ChildProcessError:
                        return


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
    # The directory is the server's own: what its killed processes wrote goes with it.
    shutil.rmtree(os.path.dirname(sys.argv[1]), ignore_errors=True)
