"""A python-gitlab administrator's Geo nodes workflow against this server, case by case (issue 17).

Run by scripts/test-clients.mjs with GITLAB_URL and GITLAB_ROOT_TOKEN in the environment. Prints `PASS <case>` or
`FAIL <case> :: <reason>` per case and `END` when done. Written against python-gitlab 3.12 (Debian bookworm's
python3-gitlab): its GeoNodeManager lists, gets, updates and deletes but cannot create, so nodes are created with
`gl.http_post('/geo_nodes', ...)` as its documentation suggests for endpoints it lacks.

The story: the administrator registers this instance as the primary (its name is the external URL with a slash,
learnt from the links the server builds) and a secondary; lists and gets them with `gl.geonodes`; reads the
primary's status with `node.status()` and every status with `gl.geonodes.status()`; sees that the secondary has no
status yet; edits the secondary with `node.save()`; repairs it; asks for the current node's failures (refused on a
primary); and deletes both. A user who is no administrator is refused.
"""
import secrets
import sys

import gitlab
from pyharness import ROOT, TAG, case, check, client, eq, need, raises, state

gl = client(ROOT)


@case("setup: a secondary created with gl.http_post; the instance's own URL from its links")
def _():
    secondary = gl.http_post("/geo_nodes", post_data={"name": f"py-geo-{TAG}", "url": f"https://py-geo-{TAG}.example.com"})
    eq(secondary["url"], f"https://py-geo-{TAG}.example.com/", "url with its trailing slash")
    base = secondary["_links"]["self"].rsplit("/api/v4/", 1)[0]
    state.update(secondary_id=secondary["id"], base=base)


@case("the primary, named after this instance, is the current node")
def _():
    (base,) = need("base")
    primary = gl.http_post("/geo_nodes", post_data={"name": base, "url": base, "primary": True})
    eq(primary["name"], f"{base}/", "name with its trailing slash")
    eq(primary["current"], True, "current")
    state.update(primary_id=primary["id"])


@case("gl.geonodes.list() and gl.geonodes.get() answer GeoNode objects")
def _():
    primary_id, secondary_id = need("primary_id", "secondary_id")
    nodes = gl.geonodes.list(get_all=True)
    check({primary_id, secondary_id} <= {n.id for n in nodes}, "both nodes listed")
    node = gl.geonodes.get(secondary_id)
    eq(node.primary, False, "primary")
    eq(node.files_max_capacity, 10, "files_max_capacity default")
    check(node._links["status"].endswith(f"/geo_nodes/{secondary_id}/status"), "_links.status")


@case("node.status() and gl.geonodes.status() report the current node, healthy")
def _():
    (primary_id,) = need("primary_id")
    status = gl.geonodes.get(primary_id).status()
    eq(status["geo_node_id"], primary_id, "geo_node_id")
    eq(status["healthy"], True, "healthy")
    eq(status["health_status"], "Healthy", "health_status")
    check(status["uploads_synced_in_percentage"].endswith("%"), "percentages are strings with %")
    statuses = gl.geonodes.status()
    eq([s["geo_node_id"] for s in statuses], [primary_id], "statuses")


@case("a secondary that never reported has no status: GitlabGetError 404")
def _():
    (secondary_id,) = need("secondary_id")
    node = gl.geonodes.get(secondary_id)
    raises(gitlab.exceptions.GitlabGetError, 404, node.status, "Status for Geo node not found")


@case("node.save() updates the secondary (name and url sent back with it), node.repair() answers it")
def _():
    (secondary_id,) = need("secondary_id")
    node = gl.geonodes.get(secondary_id)
    node.name = node.name
    node.url = node.url
    node.files_max_capacity = 3
    node.enabled = False
    node.save()
    again = gl.geonodes.get(secondary_id)
    eq(again.files_max_capacity, 3, "files_max_capacity")
    eq(again.enabled, False, "enabled")
    again.repair()
    eq(again.id, secondary_id, "repaired node")


@case("gl.geonodes.current_failures() is refused on a primary")
def _():
    need("primary_id")
    raises(gitlab.exceptions.GitlabGetError, 403, gl.geonodes.current_failures, "Failures can only be requested from a secondary node")


@case("a user who is not an administrator is refused")
def _():
    username = f"py-geo-user-{TAG}"
    user = gl.users.create({"email": f"{username}@example.com", "username": username, "name": "Py Geo", "password": f"Pw-{secrets.token_hex(8)}-x9", "skip_confirmation": True})
    raises(gitlab.exceptions.GitlabListError, 403, lambda: gl.geonodes.list(sudo=user.username))


@case("gl.geonodes.delete() removes the nodes")
def _():
    primary_id, secondary_id = need("primary_id", "secondary_id")
    for node_id in (secondary_id, primary_id):
        gl.geonodes.delete(node_id)
        raises(gitlab.exceptions.GitlabGetError, 404, lambda: gl.geonodes.get(node_id))
    eq(gl.geonodes.status(), [], "statuses")


print("END", flush=True)
sys.exit(0)
