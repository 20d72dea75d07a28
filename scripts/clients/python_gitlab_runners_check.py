"""A python-gitlab user's runner workflow against this server, case by case (issue 14).

Run by scripts/test-clients.mjs with GITLAB_URL and GITLAB_ROOT_TOKEN in the environment. Prints `PASS <case>` or
`FAIL <case> :: <reason>` per case and `END` when done. Written against python-gitlab 3.12 (Debian bookworm's
python3-gitlab): only its public client API is used (`gl.http_post` for the registration-token resets, which 3.12
has no manager method for).

The story: an administrator resets the instance registration token and registers an instance runner the way
`gl.runners.create` does it; a maintainer gets her project's token and registers a project runner with tags, lists
and filters runners, edits and pauses it with `runner.save()`, enables it in a second project and disables it again
(not in its only project), and deletes it; a group owner registers a group runner that cannot be enabled in a
project. Authentication tokens appear only in the answers that issue them.
"""
import secrets
import sys

import gitlab
from pyharness import ROOT, TAG, case, check, client, eq, need, raises, state


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


def ids(runners):
    return sorted(r.id for r in runners)


def no_token(runner, what):
    """A runner read back never carries its authentication token (removed from responses in 13.0)."""
    check("token" not in runner.attributes, f"{what} shows a token")


INFO = {"name": "gitlab-runner", "version": "16.11.0", "revision": "abcdef12", "platform": "linux", "architecture": "amd64"}

gl = client(ROOT)


@case("runners setup: a maintainer with two projects, a group owner with a group")
def _():
    maintainer = new_user("runmaint")
    owner = new_user("runowner")
    first = gl.projects.create({"name": f"Py Runners {TAG}", "visibility": "private"})
    second = gl.projects.create({"name": f"Py Runners Two {TAG}", "visibility": "private"})
    for p in (first, second):
        p.members.create({"user_id": maintainer.id, "access_level": gitlab.const.MAINTAINER_ACCESS})
    group = gl.groups.create({"name": f"Py Runner Group {TAG}", "path": f"py-runner-group-{TAG}"})
    group.members.create({"user_id": owner.id, "access_level": gitlab.const.OWNER_ACCESS})
    state.update(maintainer=maintainer, owner=owner, first=first, second=second, group=group)


@case("instance runner: reset the registration token, gl.runners.create registers, gl.runners.verify accepts its token and refuses another")
def _():
    reg = gl.http_post("/runners/reset_registration_token")
    check(reg["token"].startswith("GR1348941"), f"registration token {reg['token'][:12]}… lacks GitLab's prefix")
    runner = gl.runners.create({"token": reg["token"], "description": f"py instance {TAG}", "info": INFO, "run_untagged": True})
    check(isinstance(runner.id, int), "runner id")
    check(isinstance(runner.token, str) and len(runner.token) >= 20 and not runner.token.startswith("glrt-"), "legacy authentication token")
    eq(runner.token_expires_at, None, "token_expires_at without an expiration setting")
    gl.runners.verify(runner.token)
    raises(gitlab.exceptions.GitlabVerifyError, 403, lambda: gl.runners.verify("not-a-runner-token"))
    raises(gitlab.exceptions.GitlabCreateError, 403, lambda: gl.runners.create({"token": "GR1348941wrong"}))
    state.update(instance=runner)


@case("gl.runners.get: Runner details of the instance runner, contacted by verify, no token")
def _():
    (instance,) = need("instance")
    got = gl.runners.get(instance.id)
    eq((got.description, got.runner_type, got.is_shared, got.active, got.paused), (f"py instance {TAG}", "instance_type", True, True, False), "runner")
    eq((got.version, got.platform, got.architecture), ("16.11.0", "linux", "amd64"), "info stored by registration")
    eq((got.online, got.status), (True, "online"), "online after verify")
    check(got.contacted_at is not None, "contacted_at")
    no_token(got, "GET /runners/:id")


@case("project runner: the maintainer registers with her project's token and tags; lists and filters see what they should")
def _():
    maintainer, first = need("maintainer", "first")
    mgl = client(ROOT)
    reg = mgl.http_post(f"/projects/{first.id}/runners/reset_registration_token", sudo=maintainer.username)
    runner = gl.runners.create({"token": reg["token"], "description": f"py project {TAG}", "tag_list": ["docker", "linux"], "run_untagged": False})
    instance = state.get("instance")
    state.update(project_runner=runner)
    mine = gl.runners.list(sudo=maintainer.username, get_all=True)
    eq(ids(mine), [runner.id], "GET /runners: the runners she manages (not instance runners)")
    for r in mine:
        no_token(r, "GET /runners")
    eq(ids(gl.runners.list(sudo=maintainer.username, tag_list=["docker", "linux"], get_all=True)), [runner.id], "tag_list=docker,linux")
    eq(ids(gl.runners.list(sudo=maintainer.username, tag_list=["docker", "windows"], get_all=True)), [], "tag_list needs every tag")
    eq(ids(gl.runners.list(sudo=maintainer.username, type="instance_type", get_all=True)), [], "type=instance_type")
    eq(ids(gl.runners.list(sudo=maintainer.username, status="not_connected", get_all=True)), [runner.id], "status=not_connected before any contact")
    in_project = ids(first.runners.list(sudo=maintainer.username, get_all=True))
    check(runner.id in in_project, "project.runners.list has the project runner")
    if instance:
        check(instance.id in in_project, "project.runners.list has the instance runner")
        every = ids(gl.runners.all(get_all=True))
        check({runner.id, instance.id} <= set(every), "gl.runners.all has both")
        shared = ids(gl.runners.all(scope="shared", get_all=True))
        check(instance.id in shared and runner.id not in shared, "scope=shared: instance runners only")
    raises(gitlab.exceptions.GitlabListError, 403, lambda: gl.runners.all(sudo=maintainer.username))
    # GET /runners declares `scope` with the statuses only: Grape refuses `shared` there.
    raises(gitlab.exceptions.GitlabListError, 400, lambda: gl.runners.list(scope="shared"), "scope does not have a valid value")


@case("runner.save(): description, tags, locked and paused change; the runner reads back paused; maximum_timeout None clears the limit")
def _():
    maintainer, runner = need("maintainer", "project_runner")
    gl.runners.verify(runner.token)  # its first contact: a runner never contacted stays `not_connected` even paused (14.x)
    got = gl.runners.get(runner.id, sudo=maintainer.username)
    eq(got.status, "online", "status after its first contact")
    got.description = f"py edited {TAG}"
    got.tag_list = ["docker"]
    got.locked = False
    got.maximum_timeout = 3600
    got.save(sudo=maintainer.username)
    got.paused = True
    got.save(sudo=maintainer.username)
    back = gl.runners.get(runner.id)
    eq((back.description, back.tag_list, back.locked, back.maximum_timeout), (f"py edited {TAG}", ["docker"], False, 3600), "saved fields")
    eq((back.paused, back.active, back.status), (True, False, "paused"), "paused")
    no_token(back, "PUT /runners/:id")
    bad = gl.runners.get(runner.id)
    bad.maximum_timeout = 60
    raises(gitlab.exceptions.GitlabUpdateError, 400, lambda: bad.save(), "maximum_timeout")
    # None is sent as JSON null: the limit goes (Grape passes nil on to the update).
    unlimited = gl.runners.get(runner.id)
    unlimited.maximum_timeout = None
    unlimited.save()
    eq(gl.runners.get(runner.id).maximum_timeout, None, "maximum_timeout after saving None")
    eq(list(back.jobs.list(get_all=True)), [], "runner.jobs.list: no jobs yet")


@case("project.runners.create enables the runner in a second project; delete disables it there, never in its only project")
def _():
    maintainer, first, second, runner = need("maintainer", "first", "second", "project_runner")
    second.runners.create({"runner_id": runner.id}, sudo=maintainer.username)
    check(runner.id in ids(second.runners.list(sudo=maintainer.username, get_all=True)), "enabled in the second project")
    got = gl.runners.get(runner.id)
    eq(sorted(p["id"] for p in got.projects), sorted([first.id, second.id]), "runner projects")
    second.runners.delete(runner.id, sudo=maintainer.username)
    check(runner.id not in ids(second.runners.list(sudo=maintainer.username, get_all=True)), "disabled in the second project")
    raises(gitlab.exceptions.GitlabDeleteError, 403, lambda: first.runners.delete(runner.id, sudo=maintainer.username), "Only one project associated with the runner")
    raises(gitlab.exceptions.GitlabDeleteError, 404, lambda: second.runners.delete(runner.id, sudo=maintainer.username), "Runner Not Found")


@case("group runner: the owner's group token registers it; group.runners.list has it; it cannot be enabled in a project")
def _():
    owner, group, maintainer, second = need("owner", "group", "maintainer", "second")
    reg = gl.http_post(f"/groups/{group.id}/runners/reset_registration_token", sudo=owner.username)
    runner = gl.runners.create({"token": reg["token"], "description": f"py group {TAG}"})
    check(runner.id in ids(group.runners.list(sudo=owner.username, get_all=True)), "group.runners.list")
    eq(gl.runners.get(runner.id).runner_type, "group_type", "runner_type")
    raises(gitlab.exceptions.GitlabCreateError, 403, lambda: second.runners.create({"runner_id": runner.id}), "Runner is a group runner")
    state.update(group_runner=runner)


@case("gl.runners.delete removes runners; their tokens stop verifying and GET answers 404")
def _():
    (runner,) = need("project_runner")
    maintainer = state["maintainer"]
    gl.runners.delete(runner.id, sudo=maintainer.username)
    raises(gitlab.exceptions.GitlabGetError, 404, lambda: gl.runners.get(runner.id))
    raises(gitlab.exceptions.GitlabVerifyError, 403, lambda: gl.runners.verify(runner.token))
    for name in ("instance", "group_runner"):
        other = state.get(name)
        if other:
            gl.runners.delete(other.id)
            raises(gitlab.exceptions.GitlabVerifyError, 403, lambda: gl.runners.verify(other.token))


print("END", flush=True)
sys.exit(0)
