"""A python-gitlab user's group sharing against this server, case by case (issue 18 item 3).

Run by scripts/test-clients.mjs with GITLAB_URL and GITLAB_ROOT_TOKEN in the environment. Prints `PASS <case>` or
`FAIL <case> :: <reason>` per case and `END` when done. Written against python-gitlab 3.12: project.share(group_id,
group_access, expires_at=None) and project.unshare(group_id), group.shared_projects.list(...), project.members_all,
group.share(...) (which refreshes the group from the
GroupDetail answer) and group.unshare(group_id). python-gitlab sends `expires_at: null` when none is given.

The story: an owner shares a private project with a team's group at Reporter and a private group with it at Guest;
a team developer sees both (capped at the link's level), the entities list the shares, and unsharing takes it back.
"""
import sys

import gitlab
from pyharness import ROOT, TAG, case, client, eq, need, raises, state

gl = client(ROOT)


@case("share setup: a private project and group, a team group with a developer who sees neither")
def _():
    dev = gl.users.create({"email": f"share-{TAG}@example.com", "username": f"share-{TAG}", "name": f"Share {TAG}", "password": f"pw-{TAG}-long-enough", "skip_confirmation": True})
    token = dev.impersonationtokens.create({"name": "share", "scopes": ["api"]}).token
    team = gl.groups.create({"name": f"Team {TAG}", "path": f"team-{TAG}", "visibility": "private"})
    team.members.create({"user_id": dev.id, "access_level": 30})
    vault = gl.groups.create({"name": f"Vault {TAG}", "path": f"vault-{TAG}", "visibility": "private"})
    project = gl.projects.create({"name": f"Py Share {TAG}", "visibility": "private"})
    as_dev = client(token)
    raises(gitlab.exceptions.GitlabGetError, 404, lambda: as_dev.projects.get(project.id))
    raises(gitlab.exceptions.GitlabGetError, 404, lambda: as_dev.groups.get(vault.id))
    state.update(team=team, vault=vault, project=project, as_dev=as_dev)


@case("project.share(group_id, 20): the project lists the share and the team developer reads it as a reporter")
def _():
    team, project, as_dev = need("team", "project", "as_dev")
    project.share(team.id, gitlab.const.REPORTER_ACCESS)
    shares = gl.projects.get(project.id).shared_with_groups
    eq([(s["group_id"], s["group_access_level"], s["expires_at"]) for s in shares], [(team.id, 20, None)], "shared_with_groups")
    seen = as_dev.projects.get(project.id)
    seen.labels.create({"name": f"l-{TAG}", "color": "#00aa00"})
    seen.description = "no"
    raises(gitlab.exceptions.GitlabUpdateError, 403, seen.save)
    raises(gitlab.exceptions.GitlabCreateError, 409, lambda: project.share(team.id, 30), "already shared")


@case("group.shared_projects.list(): the projects shared with the team, filtered and paged; members_all lists the team at the link's level")
def _():
    team, project, as_dev = need("team", "project", "as_dev")
    second = gl.projects.create({"name": f"Py Share Two {TAG}", "visibility": "private", "issues_access_level": "disabled"})
    second.share(team.id, gitlab.const.DEVELOPER_ACCESS)
    listed = team.shared_projects.list(order_by="id", sort="asc")
    eq([p.id for p in listed], [project.id, second.id], "shared projects, id ascending")
    eq(type(listed[0]).__name__, "SharedProject", "python-gitlab's object")
    eq(listed[0].path_with_namespace, project.path_with_namespace, "Project entity")
    eq([p.id for p in team.shared_projects.list(with_issues_enabled=True)], [project.id], "with_issues_enabled")
    eq([p.id for p in team.shared_projects.list(search=f"Py Share Two {TAG}", simple=True)], [second.id], "search, simple")
    eq([p.id for p in team.shared_projects.list(archived=True)], [], "archived")
    # One per page: python-gitlab follows the Link header.
    eq(sorted(p.id for p in team.shared_projects.list(per_page=1, get_all=True)), sorted([project.id, second.id]), "pages")
    # The team developer reads the list through the team, and the project's members include them at min(30, 20).
    eq(sorted(p.id for p in as_dev.groups.get(team.id).shared_projects.list()), sorted([project.id, second.id]), "the developer's list")
    dev_id = as_dev.users.list(username=f"share-{TAG}")[0].id
    eq(project.members_all.get(dev_id).access_level, 20, "members_all through the share")
    eq([g["id"] for g in gl.http_get(f"/projects/{project.id}/invited_groups")], [team.id], "invited_groups")
    eq([g["id"] for g in gl.http_get(f"/groups/{team.id}/groups/shared")], [], "no group shares yet")
    second.unshare(team.id)
    eq([p.id for p in team.shared_projects.list()], [project.id], "gone with its link")


@case("project.unshare(group_id): the developer loses the project")
def _():
    team, project, as_dev = need("team", "project", "as_dev")
    project.unshare(team.id)
    raises(gitlab.exceptions.GitlabGetError, 404, lambda: as_dev.projects.get(project.id))
    raises(gitlab.exceptions.GitlabDeleteError, 404, lambda: project.unshare(team.id))


@case("group.share(group_id, 10, expires_at): the group refreshes from GroupDetail; the developer reads it until unshared")
def _():
    team, vault, as_dev = need("team", "vault", "as_dev")
    vault.share(team.id, gitlab.const.GUEST_ACCESS, expires_at="2999-01-01")
    eq([(s["group_id"], s["group_access_level"], s["expires_at"]) for s in vault.shared_with_groups], [(team.id, 10, "2999-01-01")], "shared_with_groups")
    eq(as_dev.groups.get(vault.id).id, vault.id, "the developer reads the shared group")
    eq([g["id"] for g in gl.http_get(f"/groups/{team.id}/groups/shared")], [vault.id], "groups/shared")
    eq([g["id"] for g in gl.http_get(f"/groups/{vault.id}/invited_groups")], [team.id], "invited_groups")
    vault.unshare(team.id)
    raises(gitlab.exceptions.GitlabGetError, 404, lambda: as_dev.groups.get(vault.id))


print("END", flush=True)
sys.exit(0)
