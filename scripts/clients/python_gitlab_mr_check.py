"""A python-gitlab user's merge request workflow against this server, case by case.

Run by scripts/test-clients.mjs with GITLAB_URL and GITLAB_ROOT_TOKEN in the environment, after
python_gitlab_check.py. Prints `PASS <case>` or `FAIL <case> :: <reason>` per case and `END` when done.
Written against python-gitlab 3.12 (Debian bookworm's python3-gitlab): only its public client API is used.

The story: a project gets a README commit on main, a developer branches off and commits as herself, main is
protected (developers merge, maintainers push), a project approval rule asks one approval of a named user, the
merge request (which says "Closes #n") is approved with the right sha, refused with a wrong one, unapproved and
approved again, loses its approval when the source branch moves, and is merged with the HEAD sha, closing the issue.
Other users act through sudo (root's token has the sudo scope), as an administrator's script would.
"""
import os
import re
import secrets
import sys
import warnings

import gitlab

URL = os.environ["GITLAB_URL"]
ROOT = os.environ["GITLAB_ROOT_TOKEN"]
TAG = secrets.token_hex(3)
SHA = re.compile(r"^[0-9a-f]{40}$")
state = {}
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


def new_user(prefix):
    username = f"py-{prefix}-{TAG}"
    return gl.users.create(
        {
            "email": f"{username}@example.com",
            "username": username,
            "name": f"Py {prefix.title()} {TAG}",
            "password": f"Pw-{secrets.token_hex(8)}-x9",
            "skip_confirmation": True,
        }
    )


def usernames(users):
    return sorted(u["username"] for u in users)


def approvers(approvals):
    """approved_by of a MergeRequestApprovals body: [{user: UserRef, approved_at}]."""
    return sorted(a["user"]["username"] for a in approvals["approved_by"])


gl = client(ROOT)


@case("mr setup: users, project, developer and maintainer members")
def _():
    author = new_user("mrauthor")
    approver = new_user("approver")
    project = gl.projects.create({"name": f"Py MR {TAG}", "visibility": "private"})
    project.members.create({"user_id": author.id, "access_level": gitlab.const.DEVELOPER_ACCESS})
    project.members.create({"user_id": approver.id, "access_level": gitlab.const.MAINTAINER_ACCESS})
    state.update(author=author, approver=approver, project=project)


@case("project.protectedbranches.create main before any commit (push: maintainers, merge: developers); list, get")
def _():
    (project,) = need("project")
    pb = project.protectedbranches.create({"name": "main", "push_access_level": 40, "merge_access_level": 30})
    eq(pb.name, "main", "name")
    eq([(a["access_level"], a["access_level_description"]) for a in pb.push_access_levels], [(40, "Maintainers")], "push_access_levels")
    eq([(a["access_level"], a["access_level_description"]) for a in pb.merge_access_levels], [(30, "Developers + Maintainers")], "merge_access_levels")
    eq(pb.code_owner_approval_required, False, "code_owner_approval_required")
    eq([p.name for p in project.protectedbranches.list(get_all=True)], ["main"], "protected branches")
    eq(project.protectedbranches.get("main").push_access_levels[0]["access_level"], 40, "protectedbranches.get")
    raises(gitlab.exceptions.GitlabCreateError, 409, lambda: project.protectedbranches.create({"name": "main"}), "Protected branch 'main' already exists")


@case("protectedbranches.create a wildcard with allowed_to_push users and code_owner_approval_required; delete() unprotects it")
def _():
    project, approver = need("project", "approver")
    pb = project.protectedbranches.create(
        {"name": "release/*", "push_access_level": 0, "allowed_to_push": [{"user_id": approver.id}], "code_owner_approval_required": True}
    )
    eq(pb.name, "release/*", "name")
    eq(sorted((a["access_level_description"], a.get("user_id")) for a in pb.push_access_levels), sorted([("No one", None), (approver.name, approver.id)]), "push entries")
    eq(pb.code_owner_approval_required, True, "code_owner_approval_required")
    eq(project.protectedbranches.get("release/*").name, "release/*", "get by a name with / and *")
    project.protectedbranches.delete("release/*")
    raises(gitlab.exceptions.GitlabGetError, 404, lambda: project.protectedbranches.get("release/*"))
    eq([p.name for p in project.protectedbranches.list(get_all=True)], ["main"], "protected branches after unprotect")


@case("project.approvals.get() defaults; save() sets reset_approvals_on_push; project.approvalrules.create for a named user")
def _():
    project, approver = need("project", "approver")
    conf = project.approvals.get()
    eq(
        (conf.approvals_before_merge, conf.disable_overriding_approvers_per_merge_request, conf.merge_requests_author_approval, conf.merge_requests_disable_committers_approval, conf.require_password_to_approve),
        (0, False, False, False, False),
        "default configuration",
    )
    conf.reset_approvals_on_push = True
    # Developers may read merge request settings but not change them.
    raises(gitlab.exceptions.GitlabUpdateError, 403, lambda: conf.save(sudo=state["author"].username))
    conf.save()
    eq(project.approvals.get().reset_approvals_on_push, True, "reset_approvals_on_push read back")
    rule = project.approvalrules.create({"name": "Reviewers", "approvals_required": 1, "user_ids": [approver.id]})
    eq((rule.name, rule.rule_type, rule.approvals_required), ("Reviewers", "regular", 1), "rule")
    eq(usernames(rule.users), [approver.username], "rule users")
    eq(usernames(rule.eligible_approvers), [approver.username], "rule eligible_approvers")
    eq([(r.id, r.name) for r in project.approvalrules.list(get_all=True)], [(rule.id, "Reviewers")], "approvalrules.list")
    state["rule"] = rule


@case("project.approvalrules: create a second rule, save() it (PUT), delete() it")
def _():
    project, author = need("project", "author")
    extra = project.approvalrules.create({"name": "Temporary", "approvals_required": 2, "user_ids": [author.id]})
    eq((extra.approvals_required, usernames(extra.users)), (2, [author.username]), "second rule")
    # A fresh object from list(): python-gitlab copies a list attribute into the changes as soon as it is read (to
    # notice in-place edits), so save() on `extra` would send users=[{...user...}] too, which GitLab's
    # CommaSeparatedToIntegerArray turns into user ids 0 (nobody). The spec makes name and approvals_required
    # required on update, so the script sends both.
    (extra,) = [r for r in project.approvalrules.list(get_all=True) if r.id == extra.id]
    extra.name = "Temporary"
    extra.approvals_required = 0
    extra.save()
    got = [r for r in project.approvalrules.list(get_all=True) if r.id == extra.id]
    eq([(r.name, r.approvals_required) for r in got], [("Temporary", 0)], "updated rule read back")
    extra.delete()
    eq([r.name for r in project.approvalrules.list(get_all=True)], ["Reviewers"], "rules after delete")


print("END", flush=True)
sys.exit(0)
