"""A python-gitlab user's accounts and namespaces against this server, case by case (issue 18 item 3).

Run by scripts/test-clients.mjs with GITLAB_URL and GITLAB_ROOT_TOKEN in the environment. Prints `PASS <case>` or
`FAIL <case> :: <reason>` per case and `END` when done. Written against python-gitlab 3.12 (Debian bookworm's
python3-gitlab): CurrentUserEmailManager (gl.user.emails after gl.auth(): /user/emails), UserEmailManager (user.emails, /users/:id/emails), UserMembershipManager
(user.memberships), UserActivitiesManager (gl.user_activities), KeyManager (gl.keys.get(id) and
gl.keys.get(fingerprint=...)), NamespaceManager (gl.namespaces.get, gl.namespaces.exists) and the custom attribute
managers of projects and groups (project.customattributes, group.customattributes).

The story: an administrator gives a new user a confirmed secondary address; the user adds and removes one of their
own; a group and a project take the user in, and the administrator reads the user's memberships; the user's SSH key
is found by id and by fingerprint; before creating a group, a script asks whether its path is free and takes the
suggestion; administrators tag a project and a group with custom attributes and filter lists by them.
"""
import base64
import hashlib
import os
import sys

import gitlab
from pyharness import ROOT, TAG, case, check, client, eq, need, raises, state

gl = client(ROOT)


def fresh_ed25519():
    """A structurally valid ssh-ed25519 public key around random bytes (fingerprints only need the blob)."""
    def field(b):
        return len(b).to_bytes(4, "big") + b
    blob = field(b"ssh-ed25519") + field(os.urandom(32))
    return f"ssh-ed25519 {base64.b64encode(blob).decode()} acct@example.com"


@case("a user with a token; user.emails.create (skip_confirmation) and list as administrator, the primary address first")
def _():
    user = gl.users.create({"email": f"acct-{TAG}@example.com", "username": f"acct-{TAG}", "name": f"Acct {TAG}", "password": f"pw-{TAG}-long-enough", "skip_confirmation": True})
    token = user.impersonationtokens.create({"name": "acct", "scopes": ["api"]}).token
    confirmed = user.emails.create({"email": f"acct-{TAG}-work@example.com", "skip_confirmation": True})
    eq(confirmed.email, f"acct-{TAG}-work@example.com", "email")
    check(confirmed.confirmed_at, f"confirmed_at {confirmed.confirmed_at!r}")
    # A confirmed user's primary address has its row (User#add_primary_email_to_emails!).
    eq([e.email for e in user.emails.list(get_all=True)], [user.email, confirmed.email], "user.emails.list")
    state.update(user=user, token=token, confirmed=confirmed)


@case("gl.user.emails as the user: create, get, list, delete; a taken address is a 400 with GitLab's message")
def _():
    user, token, confirmed = need("user", "token", "confirmed")
    me = client(token)
    me.auth()
    mine = me.user.emails.create({"email": f"ACCT-{TAG}-home@example.com"})
    eq((mine.email, mine.confirmed_at), (f"acct-{TAG}-home@example.com", None), "lowercased, unconfirmed")
    eq(me.user.emails.get(mine.id).email, mine.email, "get")
    eq(sorted(e.email for e in me.user.emails.list(get_all=True)), sorted([user.email, confirmed.email, mine.email]), "list")
    raises(gitlab.exceptions.GitlabCreateError, 400, lambda: me.user.emails.create({"email": confirmed.email}), "has already been taken")
    raises(gitlab.exceptions.GitlabCreateError, 400, lambda: me.user.emails.create({"email": user.email}), "has already been taken")
    mine.delete()
    raises(gitlab.exceptions.GitlabGetError, 404, lambda: me.user.emails.get(mine.id), "Email Not Found")
    # Another user's address is no one else's to create users with (User.by_any_email).
    raises(gitlab.exceptions.GitlabCreateError, 409, lambda: gl.users.create({"email": confirmed.email, "username": f"acct2-{TAG}", "name": "x", "password": f"pw-{TAG}-long-enough"}))
    user.emails.delete(confirmed.id)
    eq([e.email for e in user.emails.list(get_all=True)], [user.email], "after user.emails.delete")
    # The primary address is never deleted: Emails::DestroyService raises (GitLab's API: 500; ours: 400 with its message).
    primary = user.emails.list(get_all=True)[0]
    raises(gitlab.exceptions.GitlabDeleteError, 400, lambda: user.emails.delete(primary.id))
    raises(gitlab.exceptions.GitlabDeleteError, 400, lambda: me.user.emails.delete(primary.id))


@case("user.memberships.list (type filter) after joining a group and a project")
def _():
    (user,) = need("user")
    group = gl.groups.create({"name": f"Acct {TAG}", "path": f"acct-grp-{TAG}"})
    project = gl.projects.create({"name": "Acct project", "path": "acct-project", "namespace_id": group.id})
    group.members.create({"user_id": user.id, "access_level": 30})
    project.members.create({"user_id": user.id, "access_level": 40})
    got = sorted((m.source_type, m.source_id, m.source_name, m.access_level) for m in user.memberships.list(get_all=True))
    eq(got, sorted([("Namespace", group.id, group.name, 30), ("Project", project.id, project.name, 40)]), "memberships")
    eq([m.source_id for m in user.memberships.list(type="Project", get_all=True)], [project.id], "type=Project")
    check(isinstance(gl.user_activities.list(get_all=False), list), "gl.user_activities.list")
    state.update(group=group, project=project)


@case("gl.keys.get by id and by MD5 and SHA256 fingerprint")
def _():
    user, token = need("user", "token")
    me = client(token)
    me.auth()
    public = fresh_ed25519()
    key = me.user.keys.create({"title": "acct", "key": public})
    blob = base64.b64decode(public.split()[1])
    md5 = ":".join(f"{b:02x}" for b in hashlib.md5(blob).digest())
    sha = base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")
    by_id = gl.keys.get(key.id)
    eq((by_id.id, by_id.user["id"], by_id.user["username"]), (key.id, user.id, user.username), "by id")
    eq(gl.keys.get(fingerprint=md5).id, key.id, "by MD5")
    eq(gl.keys.get(fingerprint=f"SHA256:{sha}").id, key.id, "by SHA256")
    raises(gitlab.exceptions.GitlabHttpError, 400, lambda: gl.keys.get(fingerprint="nope"), "Failed to return the key")
    raises(gitlab.exceptions.GitlabGetError, 404, lambda: gl.keys.get(999999999))


@case("gl.namespaces.exists before creating a group: taken, suggested, then free; gl.namespaces.get")
def _():
    (group,) = need("group")
    taken = gl.namespaces.exists(group.path)
    eq((taken.exists, taken.suggests), (True, [f"{group.path}1"]), "taken")
    free = gl.namespaces.exists(taken.suggests[0])
    eq((free.exists, free.suggests), (False, []), "suggestion is free")
    gl.groups.create({"name": taken.suggests[0], "path": taken.suggests[0]})
    eq(gl.namespaces.exists(group.path).suggests, [f"{group.path}2"], "next suggestion")
    sub = gl.groups.create({"name": "child", "path": "child", "parent_id": group.id})
    eq(gl.namespaces.exists("child", parent_id=group.id).exists, True, "within the parent")
    eq(gl.namespaces.exists("child").exists, False, "top level")
    eq(gl.namespaces.get(sub.full_path).id, sub.id, "gl.namespaces.get")


@case("project.customattributes and group.customattributes: set, get, list, delete; lists filtered by them")
def _():
    group, project = need("group", "project")
    key = f"acct_{TAG}"
    project.customattributes.set(key, "blue")
    group.customattributes.set(key, "green")
    eq(project.customattributes.get(key).value, "blue", "project get")
    eq([(a.key, a.value) for a in group.customattributes.list()], [(key, "green")], "group list")
    eq([p.id for p in gl.projects.list(custom_attributes={key: "blue"}, get_all=True)], [project.id], "gl.projects.list(custom_attributes=)")
    eq([g.id for g in gl.groups.list(custom_attributes={key: "green"}, get_all=True)], [group.id], "gl.groups.list(custom_attributes=)")
    project.customattributes.delete(key)
    raises(gitlab.exceptions.GitlabGetError, 404, lambda: project.customattributes.get(key))
    eq(gl.projects.list(custom_attributes={key: "blue"}, get_all=True), [], "after delete")


@case("project.groups.list, project.transfer(namespace) and group.transfer(group_id / top level)")
def _():
    (group,) = need("group")
    child = gl.groups.create({"name": "Movable", "path": f"movable-{TAG}", "parent_id": group.id})
    project = gl.projects.create({"name": "Wanderer", "path": f"wanderer-{TAG}", "namespace_id": child.id})
    eq([g.id for g in project.groups.list(get_all=True)], [child.id, group.id], "project.groups.list")
    eq([g.id for g in project.groups.list(skip_groups=[child.id], get_all=True)], [group.id], "skip_groups")
    project.transfer(group.full_path)
    eq(gl.projects.get(project.id).path_with_namespace, f"{group.full_path}/wanderer-{TAG}", "after project.transfer")
    raises(gitlab.exceptions.GitlabTransferProjectError, 400, lambda: project.transfer(group.id), "already in this namespace")
    child.transfer()
    eq((gl.groups.get(child.id).full_path, gl.groups.get(child.id).parent_id), (f"movable-{TAG}", None), "group.transfer() to the top level")
    child.transfer(group.id)
    eq(gl.groups.get(child.id).full_path, f"{group.full_path}/movable-{TAG}", "group.transfer(group_id)")


print("END", flush=True)
sys.exit(0)
