"""The tests' Python references: the requests of one client, answered by one process
(test/support/python.ts; the process is forked by python_fork_server.py).

Importing numpy, scipy, MNE or scikit-learn costs a second or two of CPU; a process per reference
paid it again at every call. Here each module is loaded once and its functions are called as often
as the test file asks.

Requests come one JSON object a line, a call of a module's function:
  {"id": n, "module": {"name", "source"} | {"name", "path"}, "function": "f", "args": [...]}
where an argument object {"$float32": base64} or {"$float64": base64} is a little-endian numpy array,
and a module is its source (compiled under its name, so tracebacks show its lines) or a .py file,
loaded once and kept; or a script, run as `python3 -c SOURCE ARGV...` would run it, with STDIN as
its standard input, in a namespace of its own (its imports come from the modules already loaded):
  {"id": n, "script": SOURCE, "argv": [...], "stdin": "..."}
Answers go one JSON line each:
  {"id": n, "ok": true, "value": ..., "stdout": "...", "stderr": "..."}
  {"id": n, "ok": false, "error": "<Python's traceback>", "stdout": "...", "stderr": "..."}
with what the call printed; anything else written to file descriptors 1 and 2 (a C library, say)
goes to the process's own stderr, so it cannot break a line. Each call runs under
warnings.catch_warnings(), so one call's warning filters do not leak into the next. The process
ends at the end of its requests.
"""

import base64
import contextlib
import importlib.util
import io
import json
import linecache
import os
import sys
import traceback
import types
import warnings

DTYPES = {"$float32": "<f4", "$float64": "<f8"}


def decode(obj):
    if len(obj) == 1:
        for tag, dtype in DTYPES.items():
            if tag in obj:
                import numpy as np  # only when an array is sent: a plain reference needs no numpy

                return np.frombuffer(base64.b64decode(obj[tag]), dtype=dtype)
    return obj


def encode(value):
    np = sys.modules.get("numpy")
    if np is not None and isinstance(value, np.ndarray):
        return value.tolist()
    if np is not None and isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


MODULES = {}


def module_of(spec):
    key = (spec["name"], spec.get("path"), spec.get("source"))
    module = MODULES.get(key)
    if module is not None:
        return module
    if "path" in spec:
        found = importlib.util.spec_from_file_location(spec["name"], spec["path"])
        module = importlib.util.module_from_spec(found)
        found.loader.exec_module(module)
    else:
        filename = f"<{spec['name']}>"
        source = spec["source"]
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        module = types.ModuleType(spec["name"])
        module.__file__ = filename
        exec(compile(source, filename, "exec"), module.__dict__)
    MODULES[key] = module
    return module


def run_script(source, argv, stdin):
    filename = "<script>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    saved = sys.argv, sys.stdin
    sys.argv, sys.stdin = ["-c", *argv], io.StringIO(stdin)
    try:
        exec(compile(source, filename, "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
    except SystemExit as exit:
        if exit.code not in (None, 0):
            raise
    finally:
        sys.argv, sys.stdin = saved


def answer(request, answers):
    out, err = io.StringIO(), io.StringIO()
    reply = {"id": request["id"]}
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
            if "script" in request:
                value = run_script(request["script"], request["argv"], request["stdin"])
            else:
                value = getattr(module_of(request["module"]), request["function"])(*request["args"])
        text = json.dumps(value, default=encode, allow_nan=True)
        reply.update(ok=True)
    except BaseException:  # noqa: BLE001 - every failure goes back to the test, traceback and all
        text = None
        reply.update(ok=False, error=traceback.format_exc())
    reply.update(stdout=out.getvalue(), stderr=err.getvalue())
    line = json.dumps(reply)
    # The value is spliced in as text: it is often large, and was already encoded once.
    if text is not None:
        line = line[:-1] + ', "value": ' + text + "}"
    answers.write(line + "\n")
    answers.flush()


def serve(requests, answers):
    """Answers each request line of `requests` on `answers`, until the end of `requests`."""
    for line in requests:
        if line.strip():
            answer(json.loads(line, object_hook=decode), answers)

