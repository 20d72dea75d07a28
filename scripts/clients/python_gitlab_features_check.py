"""A python-gitlab administrator's feature-flag workflow against this server, case by case (issue 17).

Run by scripts/test-clients.mjs with GITLAB_URL and GITLAB_ROOT_TOKEN in the environment. Prints `PASS <case>` or
`FAIL <case> :: <reason>` per case and `END` when done. Written against python-gitlab 3.12 (Debian bookworm's
python3-gitlab), whose FeatureManager path is `/features/`: it asks for `/features/` and `/features//<name>`,
which GitLab's API accepts by squeezing slashes (Grape::Router.normalize_path), and so must this server.

The story: an administrator enables a flag, rolls it out to 30% of the time, enables it for one user and one
project, reads the list, and deletes it; a non-administrator is refused.
"""
import secrets
import sys

import gitlab
from pyharness import ROOT, TAG, case, check, client, eq, need, raises, state

gl = client(ROOT)
FLAG = f"py_flag_{TAG}"


def listed(name):
    return next((f for f in gl.features.list(get_all=True) if f.name == name), None)


@case("features setup: a user and her project")
def _():
    username = f"py-ff-{TAG}"
    user = gl.users.create(
        {"email": f"{username}@example.com", "username": username, "name": f"Py Ff {TAG}", "password": f"Pw-{secrets.token_hex(8)}-x9", "skip_confirmation": True}
    )
    project = gl.projects.create({"name": f"ff-{TAG}"}, sudo=user.username)
    state.update(ff_user=user, ff_project=project)


@case("gl.features.set(name, True) enables a flag; gl.features.list() shows it on")
def _():
    feature = gl.features.set(FLAG, True)
    eq(feature.name, FLAG, "name")
    eq(feature.state, "on", "state")
    eq(feature.gates, [{"key": "boolean", "value": True}], "gates")
    found = listed(FLAG)
    check(found is not None, "the flag is not in gl.features.list()")
    eq(found.state, "on", "listed state")


@case("gl.features.set(name, False) then 30: a percentage of time is conditional")
def _():
    eq(gl.features.set(FLAG, False).state, "off", "state after False")
    feature = gl.features.set(FLAG, 30)
    eq(feature.state, "conditional", "state")
    eq(feature.gates, [{"key": "boolean", "value": False}, {"key": "percentage_of_time", "value": 30}], "gates")
    raises(gitlab.exceptions.GitlabSetError, 400, lambda: gl.features.set(FLAG, "often"), "Cannot set")


@case("gl.features.set(name, True, user=..., project=...) enables for those actors")
def _():
    user, project = need("ff_user", "ff_project")
    gl.features.set(FLAG, False)
    feature = gl.features.set(FLAG, True, user=user.username, project=project.path_with_namespace)
    eq(feature.state, "conditional", "state")
    eq(feature.gates[1], {"key": "actors", "value": [f"User:{user.id}", f"Project:{project.id}"]}, "actors gate")
    raises(gitlab.exceptions.GitlabSetError, 400, lambda: gl.features.set(FLAG, True, user=f"nobody-{TAG}"), "is not found!")


@case("a non-administrator gets 403 from gl.features.set and gl.features.list")
def _():
    (user,) = need("ff_user")
    raises(gitlab.exceptions.GitlabSetError, 403, lambda: gl.features.set(FLAG, True, sudo=user.username))
    raises(gitlab.exceptions.GitlabListError, 403, lambda: gl.features.list(sudo=user.username))


@case("feature.delete() removes the flag; deleting again is no error")
def _():
    feature = listed(FLAG)
    check(feature is not None, "the flag is not listed before delete")
    feature.delete()
    check(listed(FLAG) is None, "the flag is still listed after delete")
    gl.features.delete(FLAG)


print("END", flush=True)
sys.exit(0)
