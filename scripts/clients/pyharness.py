"""The case harness the python-gitlab client scripts share (python_gitlab_check.py, python_gitlab_mr_check.py,
python_gitlab_runners_check.py).

scripts/test-clients.mjs runs each script with GITLAB_URL and GITLAB_ROOT_TOKEN in the environment; Python puts the
script's own folder first on sys.path, so `from pyharness import ...` finds this file next to it. Each script prints
`PASS <case>` or `FAIL <case> :: <reason>` per case and `END` when done; a failing case never stops the others, and
a case that needs state an earlier one failed to make says so (`need`). The failure reason carries the last HTTP
exchange, so a FAIL line is enough to find the endpoint at fault.
"""
import os
import secrets
import warnings

import gitlab

URL = os.environ["GITLAB_URL"]
ROOT = os.environ["GITLAB_ROOT_TOKEN"]
# Fresh names per run: usernames, project and group names carry it.
TAG = secrets.token_hex(3)
# What earlier cases made for later ones, by name.
state = {}
# The last response seen (method, path, status, start of the body), for FAIL lines.
last = {}


def on_response(resp, *args, **kwargs):
    req = resp.request
    path = req.url[len(URL):] if req.url.startswith(URL) else req.url
    body = resp.text if resp.text is not None else ""
    last.update(method=req.method, path=path, status=resp.status_code, body=body[:300].replace("\n", " "))


def client(token=None, **kwargs):
    # A per-request timeout keeps a hung endpoint from stalling the whole stage (the runner also has a deadline).
    gl = gitlab.Gitlab(URL, private_token=token, timeout=20, **kwargs)
    gl.session.hooks["response"].append(on_response)
    return gl


class Fail(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def eq(actual, expected, what):
    if actual != expected:
        raise Fail(f"{what}: expected {expected!r}, got {actual!r}")


def need(*names):
    missing = [n for n in names if n not in state]
    if missing:
        raise Fail(f"not run: needs {', '.join(missing)} from an earlier case")
    return [state[n] for n in names]


def raises(exc_type, status, fn, message=None):
    """fn must fail with python-gitlab's exc_type and the HTTP status (and message substring when given)."""
    try:
        fn()
    except exc_type as e:
        eq(e.response_code, status, f"{exc_type.__name__} status")
        if message is not None:
            check(message in str(e.error_message), f"error message {e.error_message!r} lacks {message!r}")
        return e
    except gitlab.exceptions.GitlabError as e:
        raise Fail(f"expected {exc_type.__name__} {status}, got {type(e).__name__} {e.response_code} {e.error_message!r}")
    raise Fail(f"expected {exc_type.__name__} {status}, but the call succeeded")


def case(name):
    """Runs the decorated function at once as one case. Warnings are errors inside a case, because python-gitlab
    warns about wire problems (e.g. a Link header pointing at another base URL)."""

    def run(fn):
        last.clear()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                fn()
            print(f"PASS {name}", flush=True)
        except Exception as e:  # noqa: BLE001 - every failure is reported, never raised
            reason = f"{type(e).__name__}: {e}".replace("\n", " ")
            if last:
                reason += f" | last response: {last['method']} {last['path']} -> {last['status']} {last['body']}"
            print(f"FAIL {name} :: {reason}", flush=True)
        return fn

    return run
