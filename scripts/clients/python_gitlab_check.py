"""What a python-gitlab user does against this server, case by case.

Run by scripts/test-clients.mjs with GITLAB_URL, GITLAB_ROOT_TOKEN and CLIENT_SSH_KEYS (newline separated public
keys) in the environment. Prints `PASS <case>` or `FAIL <case> :: <reason>` per case and `END` when done.
Written against python-gitlab 3.12 (Debian bookworm's python3-gitlab): only public client API is used, plus
http_get/http_put for endpoints that version has no manager for. Warnings are errors inside a case, because
python-gitlab warns about wire problems (e.g. a Link header pointing at another base URL).
"""
import datetime
import math
import os
import json
import secrets
import subprocess
import sys

import gitlab
from gitlab.v4.objects import CurrentUserManager, GroupEpicAwardEmojiManager
from pyharness import ROOT, TAG, URL, Fail, case, check, client, eq, need, raises, state

# Fallback when the runner could not make keys (no ssh-keygen): fixed ed25519 public keys.
EMBEDDED_KEYS = [
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOsGtfM0IHiTL3gJ70/2B8bAcWoCqtIfQO/eHFC5PqSB fallback-1@clients",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHvHKNycvbixQN+t85YaK4CbbEQ8g3Lx3nLmHET0PC8r fallback-2@clients",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGgoKjYYU8Da4TNEKbMk3MJWm9ObEApWKZz8j3Ygu9WI fallback-3@clients",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKHLEQZflCTzF7HNevIdSfFcyba8sP97qhQVYciimnDH fallback-4@clients",
]
# An ed25519 OpenPGP public key (no secret part exists anywhere) for the GPG key cases.
GPG_KEY = """-----BEGIN PGP PUBLIC KEY BLOCK-----

mDMEawKhrRYJKwYBBAHaRw8BAQdAf/lFcNPkB5ODjRiNIKmMddyjFlgbJXkx9D9W
lRzo7vi0LUNsaWVudCBDaGVjayBweSA8Y2xpZW50LWNoZWNrLXB5QGV4YW1wbGUu
Y29tPoiQBBMWCAA4FiEEltXYTh93w0O3FjNEQ71nSvEIbwoFAmsCoa0CGwMFCwkI
BwIGFQoJCAsCBBYCAwECHgECF4AACgkQQ71nSvEIbwrargD/T/9+fIp5uW0b3TMd
r8p0/9paySFsEEn7FRX6PKKndIwBANPOhXiyeVVpwO9fOxE4TviPNhao7sWWQq3H
7cLOblcL
=CeDv
-----END PGP PUBLIC KEY BLOCK-----"""
KEYS = [k for k in os.environ.get("CLIENT_SSH_KEYS", "").split("\n") if k.strip()] or EMBEDDED_KEYS

PASSWORDS = {}


def key_body(k):
    # GitLab returns the "publishable" key: algorithm and blob, comment replaced (entities/ssh_key.rb).
    return " ".join(k.split()[:2])


def new_user(prefix, **extra):
    username = f"py-{prefix}-{TAG}"
    attrs = {
        "email": f"{username}@example.com",
        "username": username,
        "name": f"Py {prefix.title()} {TAG}",
        "skip_confirmation": True,
    }
    if "reset_password" not in extra:
        attrs["password"] = f"Pw-{secrets.token_hex(8)}-x9"
    attrs.update(extra)
    user = gl.users.create(attrs)
    PASSWORDS[username] = attrs.get("password")
    return user


gl = client(ROOT)


@case("auth: gl.auth() as root sets gl.user (GET /user)")
def _():
    gl.auth()
    eq(gl.user.username, "root", "username")
    eq(gl.user.id, 1, "id")
    eq(gl.user.is_admin, True, "is_admin")
    check(gl.user.created_at.endswith("Z"), f"created_at not ISO UTC: {gl.user.created_at!r}")


@case("auth: bad token raises GitlabAuthenticationError 401")
def _():
    raises(gitlab.exceptions.GitlabAuthenticationError, 401, lambda: client("glpat-not-a-real-token-000").auth(), "401 Unauthorized")


@case("auth: no token at all, gl.auth() raises GitlabAuthenticationError 401")
def _():
    raises(gitlab.exceptions.GitlabAuthenticationError, 401, lambda: client(None).auth())


@case("users.create with password (POST /users)")
def _():
    u = new_user("alice", bio="hello", location="Lisbon")
    check(isinstance(u.id, int), f"id {u.id!r}")
    eq(u.username, f"py-alice-{TAG}", "username")
    eq(u.email, f"py-alice-{TAG}@example.com", "email")
    eq(u.state, "active", "state")
    eq(u.is_admin, False, "is_admin")
    eq(u.bio, "hello", "bio")
    check(u.web_url.endswith(f"/py-alice-{TAG}"), f"web_url {u.web_url!r}")
    state["alice"] = u


@case("users.create with reset_password=True and no password")
def _():
    state["bob"] = new_user("bob", reset_password=True)
    state["carol"] = new_user("carol")
    state["dave"] = new_user("dave")


@case("users.create duplicate username raises GitlabCreateError 409")
def _():
    (alice,) = need("alice")
    attrs = {"email": f"other-{TAG}@example.com", "username": alice.username, "name": "Dup", "password": "Pw-dup-Secret-91"}
    raises(gitlab.exceptions.GitlabCreateError, 409, lambda: gl.users.create(attrs), "Username has already been taken")


@case("users.create duplicate email raises GitlabCreateError 409")
def _():
    (alice,) = need("alice")
    attrs = {"email": alice.email, "username": f"py-other-{TAG}", "name": "Dup", "password": "Pw-dup-Secret-91"}
    raises(gitlab.exceptions.GitlabCreateError, 409, lambda: gl.users.create(attrs), "Email has already been taken")


@case("users.create without any password option raises GitlabCreateError 400")
def _():
    attrs = {"email": f"nopw-{TAG}@example.com", "username": f"py-nopw-{TAG}", "name": "No Pw"}
    raises(gitlab.exceptions.GitlabCreateError, 400, lambda: gl.users.create(attrs))


@case("users.create validation errors: 400 with a {attribute: [messages]} message")
def _():
    base = {"username": f"py-val-{TAG}", "name": "Val", "password": "Pw-val-Secret-9182"}
    e = raises(gitlab.exceptions.GitlabCreateError, 400, lambda: gl.users.create({**base, "email": "not-an-email"}))
    check(isinstance(e.error_message, dict), f"message is not an object: {e.error_message!r}")
    eq(e.error_message.get("email"), ["is invalid"], "email errors")
    e = raises(gitlab.exceptions.GitlabCreateError, 400, lambda: gl.users.create({**base, "email": f"val-{TAG}@example.com", "password": "short"}))
    eq(e.error_message.get("password"), ["is too short (minimum is 8 characters)"], "password errors")
    e = raises(gitlab.exceptions.GitlabCreateError, 400, lambda: gl.users.create({**base, "email": f"val-{TAG}@example.com", "username": "-bad name!"}))
    check(isinstance(e.error_message, dict) and e.error_message.get("username"), f"no username errors in {e.error_message!r}")
    eq(list(gl.users.list(username=f"py-val-{TAG}", get_all=True)), [], "users written despite the errors")


@case("users.get(id) as admin (GET /users/:id)")
def _():
    (alice,) = need("alice")
    u = gl.users.get(alice.id)
    eq(u.username, alice.username, "username")
    eq(u.email, alice.email, "email (admin view)")
    eq(u.location, "Lisbon", "location")
    eq(u.followers, 0, "followers")
    eq(u.following, 0, "following")
    check("identities" in u.attributes, "admin view lacks identities")


@case("users.get(missing) raises GitlabGetError 404")
def _():
    raises(gitlab.exceptions.GitlabGetError, 404, lambda: gl.users.get(987654321), "404 User Not Found")


@case("user.save() sends PUT /users/:id with email, username, name and the changes")
def _():
    (alice,) = need("alice")
    u = gl.users.get(alice.id)
    u.bio = "edited by python-gitlab"
    u.organization = "Acme"
    u.save()
    eq(u.bio, "edited by python-gitlab", "bio in the PUT answer")
    again = gl.users.get(alice.id)
    eq(again.bio, "edited by python-gitlab", "bio read back")
    eq(again.organization, "Acme", "organization read back")
    eq(again.username, alice.username, "username unchanged")


@case("users.update() rename and read back")
def _():
    (alice,) = need("alice")
    gl.users.update(alice.id, {"name": f"Alice Renamed {TAG}", "email": alice.email, "username": alice.username})
    eq(gl.users.get(alice.id).name, f"Alice Renamed {TAG}", "name read back")


@case("users.create with provider/extern_uid, list(extern_uid=, provider=), identityproviders.delete()")
def _():
    u = new_user("ivan", provider="github", extern_uid=f"ext-{TAG}")
    eq([(i["provider"], i["extern_uid"]) for i in gl.users.get(u.id).identities], [("github", f"ext-{TAG}")], "identities")
    eq([x.id for x in gl.users.list(extern_uid=f"ext-{TAG}", provider="github", get_all=True)], [u.id], "list by identity")
    gl.users.get(u.id, lazy=True).identityproviders.delete("github")
    eq(gl.users.get(u.id).identities, [], "identities after delete")
    raises(gitlab.exceptions.GitlabDeleteError, 404, lambda: gl.users.get(u.id, lazy=True).identityproviders.delete("github"), "404 Identity Not Found")


@case("user.customattributes set / get / list / delete, and users.list(custom_attributes=)")
def _():
    (alice,) = need("alice")
    ca = gl.users.get(alice.id, lazy=True).customattributes
    a = ca.set("team", f"blue-{TAG}")
    eq((a.key, a.value), ("team", f"blue-{TAG}"), "set() answer")
    eq(ca.get("team").value, f"blue-{TAG}", "get() value")
    eq([(x.key, x.value) for x in ca.list(get_all=True)], [("team", f"blue-{TAG}")], "list()")
    found = gl.users.list(custom_attributes={"team": f"blue-{TAG}"}, get_all=True)
    eq([x.id for x in found], [alice.id], "users filtered by custom_attributes[team]")
    ca.delete("team")
    eq(list(ca.list(get_all=True)), [], "list() after delete")
    raises(gitlab.exceptions.GitlabGetError, 404, lambda: ca.get("team"))


@case("user.avatar upload with save() (multipart PUT /users/:id)")
def _():
    (bob,) = need("bob")
    # The smallest valid PNG: 1x1 transparent pixel.
    png = bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
    )
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"py-avatar-{TAG}.png")
    with open(path, "wb") as f:
        f.write(png)
    try:
        u = gl.users.get(bob.id)
        with open(path, "rb") as f:
            u.avatar = f
            u.save()
        url = gl.users.get(bob.id).avatar_url
        check("/uploads/-/system/user/avatar/" in (url or ""), f"avatar_url {url!r}")
        check(url.startswith(URL.rsplit("/api/v4", 1)[0] + "/"), f"avatar_url {url!r} is not on this server")
        r = gl.session.get(url, timeout=20)
        eq(r.status_code, 200, f"GET {url} status")
        eq(r.content, png, "avatar bytes served back")
    finally:
        os.unlink(path)


@case("users.list(per_page=2, page=1) and page=2 are disjoint pages of 2")
def _():
    need("dave")
    p1 = gl.users.list(per_page=2, page=1)
    p2 = gl.users.list(per_page=2, page=2)
    eq(len(p1), 2, "page 1 size")
    eq(len(p2), 2, "page 2 size")
    check(not ({u.id for u in p1} & {u.id for u in p2}), "pages overlap")


@case("users.list(iterator=True) exposes X-Total, X-Total-Pages, X-Per-Page, X-Page, X-Next-Page")
def _():
    need("dave")
    every = gl.users.list(get_all=True)
    it = gl.users.list(per_page=2, iterator=True)
    eq(it.total, len(every), "total (X-Total)")
    eq(it.total_pages, math.ceil(len(every) / 2), "total_pages (X-Total-Pages)")
    eq(it.per_page, 2, "per_page (X-Per-Page)")
    eq(it.current_page, 1, "current_page (X-Page)")
    eq(it.next_page, 2, "next_page (X-Next-Page)")
    eq(it.prev_page, None, "prev_page (X-Prev-Page)")
    ids = [u.id for u in it]
    eq(len(ids), len(every), "items yielded across pages")
    eq(len(set(ids)), len(ids), "distinct ids across pages")
    last_page = math.ceil(len(every) / 2)
    tail = gl.users.list(per_page=2, page=last_page, iterator=True)
    eq(tail.current_page, last_page, "current_page of the last page")
    eq(tail.prev_page, last_page - 1, "prev_page of the last page")
    eq(tail.next_page, None, "next_page of the last page")
    empty = gl.users.list(username=f"nobody-{TAG}", iterator=True)
    eq((empty.total, empty.total_pages, len(list(empty))), (0, 1, 0), "empty list: X-Total 0, X-Total-Pages 1")


@case("users.list(get_all=True, per_page=2) follows Link rel=next to the end")
def _():
    alice, bob = need("alice", "bob")
    users = gl.users.list(get_all=True, per_page=2)
    ids = [u.id for u in users]
    check(len(ids) >= 5, f"only {len(ids)} users")
    eq(len(set(ids)), len(ids), "distinct ids")
    check(alice.id in ids and bob.id in ids and 1 in ids, "alice, bob or root missing")


@case("users.list(username=...) is case-insensitive and exact")
def _():
    (alice,) = need("alice")
    found = gl.users.list(username=alice.username.upper(), get_all=True)
    eq([u.id for u in found], [alice.id], "ids")


@case("users.list(search=...) finds by name fragment")
def _():
    alice, bob = need("alice", "bob")
    found = {u.id for u in gl.users.list(search=TAG, get_all=True)}
    check({alice.id, bob.id} <= found, f"search {TAG!r} returned {sorted(found)}")


@case("users.list(active=True): python-gitlab sends the boolean as 'True'")
def _():
    (alice,) = need("alice")
    users = gl.users.list(active=True, get_all=True)
    check(alice.id in [u.id for u in users], "alice not listed as active")
    check(all(u.state == "active" for u in users), "a non-active user listed")
    eq(list(gl.users.list(blocked=True, get_all=True)), [], "blocked users")


@case("users.list(order_by='username', sort='asc') as admin")
def _():
    need("dave")
    names = [u.username for u in gl.users.list(order_by="username", sort="asc", get_all=True)]
    eq(names, sorted(names), "usernames order")


@case("users.list(per_page=500) is capped: X-Per-Page 100")
def _():
    need("dave")
    it = gl.users.list(per_page=500, iterator=True)
    eq(it.per_page, 100, "per_page (X-Per-Page)")


@case("user.personal_access_tokens.create() as admin, token works in a second client")
def _():
    (alice,) = need("alice")
    t = gl.users.get(alice.id, lazy=True).personal_access_tokens.create({"name": "py-cli", "scopes": ["api"]})
    check(t.token.startswith("glpat-"), f"token {t.token[:8]!r}...")
    eq(t.scopes, ["api"], "scopes")
    eq(t.user_id, alice.id, "user_id")
    eq(t.active, True, "active")
    eq(t.revoked, False, "revoked")
    gl2 = client(t.token)
    gl2.auth()
    eq(gl2.user.username, alice.username, "username seen with the new token")
    eq(gl2.user.email, alice.email, "own email in GET /user (UserPublic)")
    eq(gl2.user.id, alice.id, "id seen with the new token")
    state["alice_token"] = t
    state["gl2"] = gl2


@case("a personal access token also works as oauth_token (Authorization: Bearer)")
def _():
    alice, t = need("alice", "alice_token")
    gb = client(None, oauth_token=t.token)
    gb.auth()
    eq(gb.user.username, alice.username, "username with Authorization: Bearer")


@case("non-admin users.create raises GitlabCreateError 403")
def _():
    (gl2,) = need("gl2")
    attrs = {"email": f"x-{TAG}@example.com", "username": f"py-x-{TAG}", "name": "X", "password": "Pw-x-Secret-9182"}
    raises(gitlab.exceptions.GitlabCreateError, 403, lambda: gl2.users.create(attrs))


@case("non-admin users.get sees the public view (no email)")
def _():
    gl2, bob = need("gl2", "bob")
    u = gl2.users.get(bob.id)
    eq(u.username, bob.username, "username")
    check("email" not in u.attributes, "email leaked to a non-admin")
    check("is_admin" not in u.attributes, "is_admin leaked to a non-admin")


@case("personal_access_tokens.list(user_id=) lists without secrets")
def _():
    alice, t = need("alice", "alice_token")
    tokens = gl.personal_access_tokens.list(user_id=alice.id, get_all=True)
    ids = [x.id for x in tokens]
    check(t.id in ids, f"token {t.id} not in {ids}")
    check(all("token" not in x.attributes for x in tokens), "a list item carries the token secret")


@case("personal_access_tokens.delete(id) revokes; the token then gets 401")
def _():
    (alice,) = need("alice")
    t = gl.users.get(alice.id, lazy=True).personal_access_tokens.create({"name": "py-revoke", "scopes": ["read_user"]})
    client(t.token).auth()
    gl.personal_access_tokens.delete(t.id)
    raises(gitlab.exceptions.GitlabAuthenticationError, 401, lambda: client(t.token).auth())


@case("rotate a token (POST /personal_access_tokens/:id/rotate): new secret works, old one gets 401")
def _():
    (alice,) = need("alice")
    t = gl.users.get(alice.id, lazy=True).personal_access_tokens.create({"name": "py-rotate", "scopes": ["api"]})
    new = gl.http_post(f"/personal_access_tokens/{t.id}/rotate")
    check(new.get("token", "").startswith("glpat-") and new["token"] != t.token, "no new token in the answer")
    eq(new.get("name"), "py-rotate", "name kept")
    client(new["token"]).auth()
    raises(gitlab.exceptions.GitlabAuthenticationError, 401, lambda: client(t.token).auth())


@case("OAuth password grant (POST /oauth/token) then Gitlab(oauth_token=)")
def _():
    (alice,) = need("alice")
    r = gl.session.post(
        URL + "/oauth/token",
        data={"grant_type": "password", "username": alice.username, "password": PASSWORDS[alice.username]},
        timeout=20,
    )
    eq(r.status_code, 200, f"POST /oauth/token status (body {r.text[:200]!r})")
    body = r.json()
    eq(body.get("token_type"), "Bearer", "token_type")
    check(isinstance(body.get("expires_in"), int), f"expires_in {body.get('expires_in')!r}")
    oc = client(None, oauth_token=body["access_token"])
    oc.auth()
    eq(oc.user.username, alice.username, "username with the OAuth access token")


@case("a read_user token can read /user but not write (403 insufficient_scope)")
def _():
    (alice,) = need("alice")
    t = gl.users.get(alice.id, lazy=True).personal_access_tokens.create({"name": "py-ro", "scopes": ["read_user"]})
    ro = client(t.token)
    ro.auth()
    eq(ro.user.username, alice.username, "username")
    raises(gitlab.exceptions.GitlabCreateError, 403, lambda: ro.user.keys.create({"title": "ro", "key": KEYS[3]}))


@case("impersonation tokens: create, use, list, get, revoke (user.impersonationtokens)")
def _():
    (alice,) = need("alice")
    mgr = gl.users.get(alice.id, lazy=True).impersonationtokens
    it = mgr.create({"name": "py-imp", "scopes": ["api", "read_user"]})
    eq(it.impersonation, True, "impersonation")
    eq(sorted(it.scopes), ["api", "read_user"], "scopes")
    check(bool(it.token), "no token in the create answer")
    imp = client(it.token)
    imp.auth()
    eq(imp.user.username, alice.username, "username seen with the impersonation token")
    active = [x.id for x in mgr.list(state="active", get_all=True)]
    check(it.id in active, f"{it.id} not in active list {active}")
    got = mgr.get(it.id)
    eq(got.name, "py-imp", "name")
    check("token" not in got.attributes, "GET shows the token secret")
    got.delete()
    inactive = [x.id for x in mgr.list(state="inactive", get_all=True)]
    check(it.id in inactive, f"{it.id} not in inactive list {inactive}")
    raises(gitlab.exceptions.GitlabAuthenticationError, 401, lambda: client(it.token).auth())


@case("user.block() / unblock(): True answers, blocked=True filter, a blocked user's token gets 403")
def _():
    (dave,) = need("dave")
    u = gl.users.get(dave.id)
    t = gl.users.get(dave.id, lazy=True).personal_access_tokens.create({"name": "py-block", "scopes": ["read_user"]})
    eq(u.block(), True, "block() answer")
    eq(u.state, "blocked", "state after block()")
    eq(gl.users.get(dave.id).state, "blocked", "state read back")
    check(dave.id in [x.id for x in gl.users.list(blocked=True, get_all=True)], "not listed with blocked=True")
    raises(gitlab.exceptions.GitlabGetError, 403, lambda: client(t.token).auth(), "Your account has been blocked.")
    eq(u.unblock(), True, "unblock() answer")
    eq(gl.users.get(dave.id).state, "active", "state after unblock()")
    client(t.token).auth()


@case("user.deactivate() / activate(): not a user active in the last 90 days (dave used the API above)")
def _():
    (dave,) = need("dave")
    # User#can_be_deactivated?: dave's token was used in the block case, which records today's activity.
    raises(gitlab.exceptions.GitlabDeactivateError, 403, lambda: gl.users.get(dave.id).deactivate(), "has been active in the past 90 days")
    idle = new_user("idle")
    u = gl.users.get(idle.id)
    check(u.deactivate(), "deactivate() answer is not truthy")
    eq(gl.users.get(idle.id).state, "deactivated", "state after deactivate()")
    check(u.activate(), "activate() answer is not truthy")
    eq(gl.users.get(idle.id).state, "active", "state after activate()")


@case("user.ban() / unban()")
def _():
    (dave,) = need("dave")
    u = gl.users.get(dave.id)
    check(u.ban(), "ban() answer is not truthy")
    eq(gl.users.get(dave.id).state, "banned", "state after ban()")
    check(u.unban(), "unban() answer is not truthy")
    eq(gl.users.get(dave.id).state, "active", "state after unban()")


@case("admin SSH keys for a user: user.keys create, list, get, delete (/users/:id/keys)")
def _():
    (alice,) = need("alice")
    keys = gl.users.get(alice.id, lazy=True).keys
    k = keys.create({"title": "py-laptop", "key": KEYS[0]})
    eq(k.title, "py-laptop", "title")
    # Key#publishable_key: the comment is replaced by "<owner name> (<host name>)".
    eq(k.key, f"{key_body(KEYS[0])} {gl.users.get(alice.id).name} (127.0.0.1)", "key")
    check(k.created_at.endswith("Z"), f"created_at {k.created_at!r}")
    check(k.id in [x.id for x in keys.list(get_all=True)], "created key not listed")
    eq(keys.get(k.id).title, "py-laptop", "title via GET /users/:id/keys/:key_id")
    keys.delete(k.id)
    check(k.id not in [x.id for x in keys.list(get_all=True)], "deleted key still listed")


@case("SSH keys listed by username (GET /users/:username/keys)")
def _():
    (alice,) = need("alice")
    k = gl.users.get(alice.id, lazy=True).keys.create({"title": "py-by-name", "key": KEYS[2]})
    listed = gl.users.get(alice.username, lazy=True).keys.list(get_all=True)
    check(k.id in [x.id for x in listed], "key not listed by username")
    # No anonymous read here: real GitLab serves this list without a token, but the spec (Document 2,
    # Authentication 1) exempts only the status read, and the spec wins.


@case("current user SSH keys: gl.user.keys create (with expires_at), list, get, delete (/user/keys)")
def _():
    (gl2,) = need("gl2")
    expires = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
    k = gl2.user.keys.create({"title": "py-own", "key": KEYS[1], "expires_at": expires})
    eq(k.title, "py-own", "title")
    check(k.expires_at and k.expires_at.startswith(expires[:10]), f"expires_at {k.expires_at!r}")
    check(k.id in [x.id for x in gl2.user.keys.list(get_all=True)], "own key not listed")
    eq(gl2.user.keys.get(k.id).title, "py-own", "title via GET /user/keys/:key_id")
    state["own_key"] = k


@case("adding an SSH key already in use raises GitlabCreateError 400 'has already been taken'")
def _():
    gl2, _ = need("gl2", "own_key")
    raises(gitlab.exceptions.GitlabCreateError, 400, lambda: gl2.user.keys.create({"title": "again", "key": KEYS[1]}), "has already been taken")


@case("adding an invalid SSH key raises GitlabCreateError 400")
def _():
    (gl2,) = need("gl2")
    raises(gitlab.exceptions.GitlabCreateError, 400, lambda: gl2.user.keys.create({"title": "bad", "key": "ssh-ed25519 not-base64"}))


@case("key.delete() on /user/keys/:id, then get raises GitlabGetError 404")
def _():
    gl2, k = need("gl2", "own_key")
    k.delete()
    raises(gitlab.exceptions.GitlabGetError, 404, lambda: gl2.user.keys.get(k.id))


@case("current user status: gl.user.status.get(), save() (PUT /user/status), read by others")
def _():
    gl2, alice = need("gl2", "alice")
    st = gl2.user.status.get()
    st.message = "py busy :coffee:"
    st.emoji = "coffee"
    st.save()
    eq(st.message, "py busy :coffee:", "message in the PUT answer")
    seen = gl.users.get(alice.id, lazy=True).status.get()
    eq(seen.emoji, "coffee", "emoji via GET /users/:id/status")
    eq(seen.message, "py busy :coffee:", "message via GET /users/:id/status")
    check("py busy" in (seen.message_html or ""), f"message_html {seen.message_html!r}")
    anon = client(None).users.get(alice.username, lazy=True).status.get()
    eq(anon.message, "py busy :coffee:", "message via GET /users/:username/status without a token")


@case("follow / followers_users / following_users / unfollow")
def _():
    gl2, alice, bob = need("gl2", "alice", "bob")
    res = gl2.users.get(bob.id, lazy=True).follow()
    eq(res.get("id") if isinstance(res, dict) else None, bob.id, "follow answer id")
    followers = [u.id for u in gl.users.get(bob.id, lazy=True).followers_users.list(get_all=True)]
    eq(followers, [alice.id], "bob's followers")
    following = [u.id for u in gl.users.get(alice.id, lazy=True).following_users.list(get_all=True)]
    eq(following, [bob.id], "alice's following")
    eq(gl.users.get(bob.id).followers, 1, "bob.followers count")
    # users.rb answers not_modified! (304) when the follow already exists; python-gitlab raises on it.
    raises(gitlab.exceptions.GitlabFollowError, 304, lambda: gl2.users.get(bob.id, lazy=True).follow())
    gl2.users.get(bob.id, lazy=True).unfollow()
    eq(list(gl.users.get(bob.id, lazy=True).followers_users.list(get_all=True)), [], "bob's followers after unfollow")


@case("sudo as a request option (?sudo=username and ?sudo=id)")
def _():
    alice, bob = need("alice", "bob")
    eq(CurrentUserManager(gl).get(sudo=alice.username).username, alice.username, "username with sudo=username")
    eq(gl.http_get("/user", sudo=bob.id)["username"], bob.username, "username with sudo=id")


@case("sudo as a Sudo header on a whole client")
def _():
    (alice,) = need("alice")
    gls = client(ROOT)
    gls.headers["Sudo"] = alice.username
    gls.auth()
    eq(gls.user.username, alice.username, "username")
    eq(gls.http_get("/user")["id"], alice.id, "id on a second request")


@case("sudo errors: non-admin gets 403, unknown user gets 404")
def _():
    gl2, bob = need("gl2", "bob")
    raises(gitlab.exceptions.GitlabHttpError, 403, lambda: gl2.http_get("/user", sudo=bob.username), "403 Forbidden - Must be admin to use sudo")
    raises(gitlab.exceptions.GitlabHttpError, 404, lambda: gl.http_get("/user", sudo=f"nobody-{TAG}"), f"nobody-{TAG}")


@case("sudo with an admin token lacking the sudo scope: 403 insufficient_scope")
def _():
    (bob,) = need("bob")
    adm = new_user("adm", admin=True)
    t = gl.users.get(adm.id, lazy=True).personal_access_tokens.create({"name": "py-nosudo", "scopes": ["api"]})
    raises(gitlab.exceptions.GitlabHttpError, 403, lambda: client(t.token).http_get("/user", sudo=bob.username), "insufficient_scope")


@case("preferences via http_put/http_get (/user/preferences)")
def _():
    (gl2,) = need("gl2")
    put = gl2.http_put("/user/preferences", post_data={"view_diffs_file_by_file": True, "show_whitespace_in_diffs": False})
    eq(put.get("view_diffs_file_by_file"), True, "view_diffs_file_by_file in the PUT answer")
    got = gl2.http_get("/user/preferences")
    eq(got.get("view_diffs_file_by_file"), True, "view_diffs_file_by_file read back")
    eq(got.get("show_whitespace_in_diffs"), False, "show_whitespace_in_diffs read back")


@case("GPG keys of the current user list empty (gl.user.gpgkeys)")
def _():
    (gl2,) = need("gl2")
    eq(list(gl2.user.gpgkeys.list(get_all=True)), [], "gpg keys")


@case("current user GPG keys: gl.user.gpgkeys create, list, get, delete (/user/gpg_keys)")
def _():
    (gl2,) = need("gl2")
    k = gl2.user.gpgkeys.create({"key": GPG_KEY})
    check(isinstance(k.id, int), f"id {k.id!r}")
    eq(k.key.strip(), GPG_KEY.strip(), "key")
    eq([x.id for x in gl2.user.gpgkeys.list(get_all=True)], [k.id], "list")
    eq(gl2.user.gpgkeys.get(k.id).key.strip(), GPG_KEY.strip(), "get")
    k.delete()
    eq(list(gl2.user.gpgkeys.list(get_all=True)), [], "list after delete")


@case("admin GPG keys for a user: user.gpgkeys create, list, delete (/users/:id/gpg_keys)")
def _():
    (bob,) = need("bob")
    mgr = gl.users.get(bob.id, lazy=True).gpgkeys
    k = mgr.create({"key": GPG_KEY})
    eq([x.id for x in mgr.list(get_all=True)], [k.id], "list")
    mgr.delete(k.id)
    eq(list(mgr.list(get_all=True)), [], "list after delete")


@case("application settings: gl.settings.get() and save()")
def _():
    s = gl.settings.get()
    check("signup_enabled" in s.attributes, "no signup_enabled")
    s.after_sign_up_text = f"welcome {TAG}"
    s.save()
    eq(gl.settings.get().after_sign_up_text, f"welcome {TAG}", "after_sign_up_text read back")


@case("application settings as non-admin raise GitlabGetError 403")
def _():
    (gl2,) = need("gl2")
    raises(gitlab.exceptions.GitlabGetError, 403, lambda: gl2.settings.get())


def cli(*args, token=ROOT):
    """The `gitlab` command line tool shipped with python-gitlab, with JSON output."""
    cmd = [sys.executable, "-m", "gitlab", "--server-url", URL, "--private-token", token, "-o", "json", *args]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env={**os.environ, "HOME": os.environ.get("TMPDIR", "/tmp")})
    if r.returncode != 0:
        raise Fail(f"`gitlab {' '.join(args)}` exited {r.returncode}: {(r.stderr or r.stdout).strip()[-300:]}")
    return json.loads(r.stdout)


@case("gitlab CLI: current-user get, user list --per-page/--page, user create, user get")
def _():
    eq(cli("current-user", "get")["username"], "root", "current-user username")
    page = cli("user", "list", "--per-page", "2", "--page", "1")
    eq(len(page), 2, "user list page size")
    name = f"py-cli-{TAG}"
    made = cli("user", "create", "--email", f"{name}@example.com", "--username", name, "--name", "Cli User", "--password", f"Pw-{TAG}-cli-Secret9")
    eq(made["username"], name, "created username")
    eq(cli("user", "get", "--id", str(made["id"]))["email"], f"{name}@example.com", "email via user get")


@case("user.delete() (DELETE /users/:id), then get raises 404")
def _():
    (carol,) = need("carol")
    gl.users.get(carol.id).delete()
    raises(gitlab.exceptions.GitlabGetError, 404, lambda: gl.users.get(carol.id))


@case("users.delete(missing) raises GitlabDeleteError 404")
def _():
    raises(gitlab.exceptions.GitlabDeleteError, 404, lambda: gl.users.delete(987654321))


# --- Projects, groups, members and issues (issue 3) -------------------------------------------------------------


@case("groups.create, a subgroup, projects.create in it, members.create")
def _():
    group = gl.groups.create({"name": f"Py Group {TAG}", "path": f"py-group-{TAG}", "visibility": "private"})
    sub = gl.groups.create({"name": "Sub", "path": f"sub-{TAG}", "parent_id": group.id})
    eq(sub.full_path, f"py-group-{TAG}/sub-{TAG}", "subgroup full_path")
    project = gl.projects.create({"name": f"Py Issues {TAG}", "namespace_id": sub.id})
    eq(project.path_with_namespace, f"py-group-{TAG}/sub-{TAG}/py-issues-{TAG}", "path_with_namespace")
    dev = new_user("issuedev")
    member = group.members.create({"user_id": dev.id, "access_level": gitlab.const.DEVELOPER_ACCESS})
    eq(member.access_level, 30, "member access_level")
    eq([m.username for m in project.members_all.list(get_all=True) if m.id == dev.id], [dev.username], "inherited member of the project")
    eq(gl.projects.get(project.path_with_namespace).id, project.id, "project by URL-encoded full path")
    state.update(group=group, sub=sub, project=project, issuedev=dev)


@case("project.labels.create and project.milestones.create")
def _():
    (project,) = need("project")
    label = project.labels.create({"name": "bug", "color": "#d9534f"})
    eq((label.name, label.color), ("bug", "#d9534f"), "label")
    milestone = project.milestones.create({"title": f"v1-{TAG}", "due_date": "2031-01-31"})
    eq((milestone.iid, milestone.state), (1, "active"), "milestone iid and state")
    state["milestone"] = milestone


@case("project.issues.create with labels, assignee and milestone; get by iid")
def _():
    project, dev, milestone = need("project", "issuedev", "milestone")
    issue = project.issues.create({"title": "Crash on start", "description": "- [ ] fix\n- [x] repro", "labels": ["bug", "p1"], "assignee_ids": [dev.id], "milestone_id": milestone.id})
    eq(issue.iid, 1, "iid")
    eq(sorted(issue.labels), ["bug", "p1"], "labels")
    eq([a["id"] for a in issue.assignees], [dev.id], "assignees")
    eq(issue.milestone["title"], milestone.title, "milestone")
    eq(issue.task_completion_status, {"count": 2, "completed_count": 1}, "task_completion_status")
    got = project.issues.get(1)
    eq((got.title, got.state, got.references["short"]), ("Crash on start", "opened", "#1"), "issue read back")
    for n in range(2, 6):
        project.issues.create({"title": f"Issue {n}", "labels": ["p2"] if n % 2 else []})
    state["issue"] = got


@case("issue.save() changes title, labels and closes it; reopen")
def _():
    (issue,) = need("issue")
    issue.title = "Crash on start (renamed)"
    issue.labels = ["bug"]
    issue.save()
    eq((issue.title, issue.labels), ("Crash on start (renamed)", ["bug"]), "after save")
    issue.state_event = "close"
    issue.save()
    eq(issue.state, "closed", "state after close")
    # ProjectIssue.closed_by is a python-gitlab method (merge requests closing the issue); the field is in attributes.
    check(issue.closed_at is not None and issue.attributes["closed_by"]["username"] == "root", "closed_at / closed_by")
    issue.state_event = "reopen"
    issue.save()
    eq(issue.state, "opened", "state after reopen")


@case("project.issues.list filters: labels, state, milestone, assignee, search, iids; order_by/sort")
def _():
    project, dev, milestone = need("project", "issuedev", "milestone")
    eq([i.iid for i in project.issues.list(labels=["p2"], get_all=True)], [5, 3], "labels=p2 newest first")
    eq([i.iid for i in project.issues.list(milestone=milestone.title, get_all=True)], [1], "milestone title")
    eq([i.iid for i in project.issues.list(assignee_id=dev.id, get_all=True)], [1], "assignee_id")
    eq([i.iid for i in project.issues.list(search="renamed", get_all=True)], [1], "search")
    eq([i.iid for i in project.issues.list(iids=[2, 4], order_by="created_at", sort="asc", get_all=True)], [2, 4], "iids[] ascending")
    eq(len(project.issues.list(state="closed", get_all=True)), 0, "no closed issues")


@case("project.issues.list(iterator=True, per_page=2) pages through X-Total and Link")
def _():
    (project,) = need("project")
    it = project.issues.list(per_page=2, iterator=True)
    eq((it.total, it.total_pages, it.per_page), (5, 3, 2), "X-Total, X-Total-Pages, X-Per-Page")
    eq(sorted(i.iid for i in it), [1, 2, 3, 4, 5], "all iids across pages")


@case("project.issues.list(per_page=2, page=2) is one page; get_all=True follows Link over 3 pages in order")
def _():
    (project,) = need("project")
    eq([i.iid for i in project.issues.list(per_page=2, page=2)], [3, 2], "page 2 of 2-item pages, newest first")
    eq([i.iid for i in project.issues.list(per_page=2, get_all=True)], [5, 4, 3, 2, 1], "every page via get_all")
    it = project.issues.list(per_page=2, iterator=True, state="opened", labels=["p2"])
    eq((it.total, it.total_pages), (2, 1), "X-Total / X-Total-Pages with state and labels filters")
    eq([i.iid for i in it], [5, 3], "filtered iterator")


@case("group.issues.list includes subgroup projects; gl.issues.list(scope='all') and the default created_by_me")
def _():
    group, project = need("group", "project")
    eq(len(group.issues.list(get_all=True)), 5, "group issues")
    mine = {i.id for i in gl.issues.list(get_all=True)}
    check({i.id for i in project.issues.list(get_all=True)} <= mine, "root's own issues in /issues")
    check(len(gl.issues.list(scope="all", per_page=100, get_all=False)) >= 5, "scope=all")


@case("time tracking: time_estimate('3h30m'), add_spent_time('1h'), time_stats(), resets")
def _():
    (issue,) = need("issue")
    eq(issue.time_estimate("3h30m")["human_time_estimate"], "3h 30m", "human_time_estimate")
    spent = issue.add_spent_time("1h")
    eq((spent["total_time_spent"], spent["human_total_time_spent"]), (3600, "1h"), "spent")
    # time_stats() returns the issue's cached attribute when it has one; a lazy object asks the server.
    project = need("project")[0]
    stats = project.issues.get(issue.iid, lazy=True).time_stats()
    eq((stats["time_estimate"], stats["total_time_spent"]), (12600, 3600), "time_stats")
    eq(issue.reset_time_estimate()["time_estimate"], 0, "reset estimate")
    eq(issue.reset_spent_time()["total_time_spent"], 0, "reset spent")


@case("issue.todo() then gl.todos.list(); mark_as_done; participants(); subscribe/unsubscribe")
def _():
    issue, dev = need("issue", "issuedev")
    eq(len(issue.closed_by()), 0, "merge requests closing the issue (GET closed_by)")
    eq(len(issue.related_merge_requests()), 0, "related merge requests")
    issue.todo()
    todos = [t for t in gl.todos.list(get_all=True) if t.target["id"] == issue.id]
    eq([t.action_name for t in todos], ["marked"], "to-do action")
    todos[0].mark_as_done()
    eq([t.id for t in gl.todos.list(get_all=True) if t.target["id"] == issue.id], [], "pending after done")
    names = sorted(u["username"] for u in issue.participants())
    check("root" in names and dev.username in names, f"participants {names}")
    issue.unsubscribe()
    eq(issue.subscribed, False, "unsubscribed")
    issue.subscribe()
    eq(issue.subscribed, True, "subscribed")


@case("project.members.create (guest), member.save() to reporter and back, members.get/list")
def _():
    (project,) = need("project")
    guest = new_user("guest")
    m = project.members.create({"user_id": guest.id, "access_level": gitlab.const.GUEST_ACCESS})
    eq((m.username, m.access_level), (guest.username, 10), "created member")
    m.access_level = gitlab.const.REPORTER_ACCESS
    m.save()
    eq(project.members.get(guest.id).access_level, 20, "access_level read back after save()")
    check(guest.id in [x.id for x in project.members.list(get_all=True)], "member not in project.members.list")
    m.access_level = gitlab.const.GUEST_ACCESS
    m.save()
    eq(project.members.get(guest.id).access_level, 10, "access_level back to guest")
    state["guest"] = guest


@case("confidential issue: a guest (sudo) gets 404 and does not list it; a developer reads it")
def _():
    project, guest, dev = need("project", "guest", "issuedev")
    secret = project.issues.create({"title": "Secret", "confidential": True})
    eq(secret.confidential, True, "confidential")
    raises(gitlab.exceptions.GitlabGetError, 404, lambda: project.issues.get(secret.iid, sudo=guest.username), "404 Not found")
    seen = [i.iid for i in project.issues.list(get_all=True, sudo=guest.username)]
    check(secret.iid not in seen and 1 in seen, f"guest's list {seen} (confidential #{secret.iid} must be hidden, #1 shown)")
    eq(project.issues.get(secret.iid, sudo=dev.username).title, "Secret", "developer reads it")


@case("issue.notes: create, internal note hidden from a guest, list(sort='asc'), get, save(), delete; system notes")
def _():
    project, issue, guest = need("project", "issue", "guest")
    n1 = issue.notes.create({"body": "First comment"})
    eq((n1.body, n1.system, n1.noteable_type, n1.noteable_iid, n1.author["username"]), ("First comment", False, "Issue", issue.iid, "root"), "created note")
    n2 = issue.notes.create({"body": "Internal remark", "internal": True})
    eq((n2.internal, n2.confidential), (True, True), "internal note flags")
    notes = issue.notes.list(get_all=True, sort="asc")
    eq([n.body for n in notes if not n.system], ["First comment", "Internal remark"], "user notes oldest first")
    system = [n.body for n in notes if n.system]
    # The changed characters are marked as GitLab's InlineDiffMarkdownMarker does ({+added+}, {-removed-}).
    check("changed title from **Crash on start** to **Crash on start{+ (renamed)+}**" in system, f"title system note missing from {system}")
    check("changed time estimate to 3h 30m" in system, f"time estimate system note missing from {system}")
    guest_view = [n.body for n in issue.notes.list(get_all=True, sudo=guest.username) if not n.system]
    eq(guest_view, ["First comment"], "a guest does not see the internal note")
    n1.body = "First comment (edited)"
    n1.save()
    eq(issue.notes.get(n1.id).body, "First comment (edited)", "body read back after save()")
    eq(project.issues.get(issue.iid).user_notes_count, 2, "user_notes_count")
    n2.delete()
    raises(gitlab.exceptions.GitlabGetError, 404, lambda: issue.notes.get(n2.id))
    state["note"] = n1


@case("issue.awardemojis: thumbsup/thumbsdown set upvotes/downvotes; list, get, delete; duplicate 404; note.awardemojis")
def _():
    project, issue, note, dev = need("project", "issue", "note", "issuedev")
    up = issue.awardemojis.create({"name": "thumbsup"})
    eq((up.name, up.user["username"], up.awardable_type, up.awardable_id), ("thumbsup", "root", "Issue", issue.id), "award")
    issue.awardemojis.create({"name": "thumbsdown"}, sudo=dev.username)
    got = project.issues.get(issue.iid)
    eq((got.upvotes, got.downvotes), (1, 1), "upvotes, downvotes")
    eq(sorted(a.name for a in issue.awardemojis.list(get_all=True)), ["thumbsdown", "thumbsup"], "award list")
    eq(issue.awardemojis.get(up.id).name, "thumbsup", "award get")
    raises(gitlab.exceptions.GitlabCreateError, 404, lambda: issue.awardemojis.create({"name": "thumbsup"}))
    up.delete()
    eq(project.issues.get(issue.iid).upvotes, 0, "upvotes after delete")
    tada = note.awardemojis.create({"name": "tada"})
    eq((tada.name, tada.awardable_type, tada.awardable_id), ("tada", "Note", note.id), "note award")
    eq([a.name for a in note.awardemojis.list(get_all=True)], ["tada"], "note award list")


@case("group labels and milestones: issue uses them; milestone.issues() for group and project; label.subscribe()")
def _():
    group, project, pm = need("group", "project", "milestone")
    label = group.labels.create({"name": "frontend", "color": "#428bca"})
    eq((label.name, label.color), ("frontend", "#428bca"), "group label")
    gm = group.milestones.create({"title": f"Q1-{TAG}", "due_date": "2031-03-31"})
    eq((gm.title, gm.state, gm.group_id), (f"Q1-{TAG}", "active", group.id), "group milestone")
    planned = project.issues.create({"title": "Planned", "labels": ["frontend"], "milestone_id": gm.id})
    eq((planned.labels, planned.milestone["id"]), (["frontend"], gm.id), "issue with group label and milestone")
    eq([i.title for i in gm.issues()], ["Planned"], "group milestone issues")
    eq([i.iid for i in pm.issues()], [1], "project milestone issues")
    names = {l.name for l in project.labels.list(get_all=True)}
    check({"bug", "frontend"} <= names, f"project labels {sorted(names)} lack the group label")
    eq([i.iid for i in project.issues.list(labels=["frontend"], get_all=True)], [planned.iid], "labels filter on a group label")
    bug = project.labels.get("bug")
    bug.subscribe()
    eq(bug.subscribed, True, "label subscribed")
    gm.state_event = "close"
    gm.save()
    eq(group.milestones.get(gm.id).state, "closed", "milestone closed")


@case("group.epics.create, get, save(); an issue joins it (epic.issues.list); epic.notes; epic award emoji and upvotes")
def _():
    group, project = need("group", "project")
    epic = group.epics.create({"title": "Py roadmap", "labels": ["theme"], "description": "Plan"})
    eq((epic.iid, epic.labels, epic.state), (1, ["theme"], "opened"), "created epic")
    epic.title = "Py roadmap 2026"
    epic.save()
    eq(group.epics.get(epic.iid).title, "Py roadmap 2026", "title read back")
    joined = project.issues.create({"title": "In the py epic", "epic_id": epic.id})
    eq(joined.epic["iid"], epic.iid, "issue epic")
    eq([i.title for i in epic.issues.list(get_all=True)], ["In the py epic"], "epic issues")
    note = epic.notes.create({"body": "Epic comment"})
    eq((note.body, note.noteable_type), ("Epic comment", "Epic"), "epic note")
    eq([n.body for n in epic.notes.list(get_all=True) if not n.system], ["Epic comment"], "epic notes")
    # python-gitlab 3.12 has the epic award emoji manager but does not hang it on GroupEpic; a script builds it itself.
    awards = GroupEpicAwardEmojiManager(gl, parent=epic)
    up = awards.create({"name": "thumbsup"})
    eq((up.name, up.awardable_type, up.awardable_id), ("thumbsup", "Epic", epic.id), "epic award")
    eq([a.name for a in awards.list(get_all=True)], ["thumbsup"], "epic awards")
    eq(group.epics.get(epic.iid).upvotes, 1, "epic upvotes")


@case("gl.issues.get(id) as admin; issue.user_agent_detail() names python-gitlab")
def _():
    (issue,) = need("issue")
    eq(gl.issues.get(issue.id).title, issue.title, "GET /issues/:id")
    detail = issue.user_agent_detail()
    check("python-gitlab" in (detail.get("user_agent") or ""), f"user_agent_detail {detail}")
    eq(detail.get("spamsvc_submitted"), False, "spamsvc_submitted")
    check(isinstance(detail.get("ip_address"), str) and detail["ip_address"], f"ip_address {detail.get('ip_address')!r}")


@case("assignment to-do of the assignee (sudo), gl.todos.mark_all_as_done()")
def _():
    issue, dev = need("issue", "issuedev")
    todos = gl.todos.list(get_all=True, sudo=dev.username)
    eq([(t.action_name, t.target["iid"]) for t in todos if t.target["id"] == issue.id], [("assigned", issue.iid)], "assignee's to-dos")
    gl.todos.mark_all_as_done(sudo=dev.username)
    eq(list(gl.todos.list(get_all=True, sudo=dev.username)), [], "pending to-dos after mark_all_as_done")


@case("issue.notes.create({'body': '/promote'}) promotes the issue to an epic of its group; a second /promote is refused")
def _():
    project, sub = need("project", "sub")
    issue = project.issues.create({"title": "Promote me", "labels": ["bug"]})
    answer = issue.notes.create({"body": "/promote"})
    eq((answer.attributes.get("commands_changes"), answer.attributes.get("summary")), ({"promote_to_epic": True}, ["Promoted issue to an epic."]), "202 NoteCommands")
    eq(project.issues.get(issue.iid).state, "closed", "promoted issue state")
    epics = [e for e in sub.epics.list(get_all=True) if e.title == "Promote me"]
    eq([e.labels for e in epics], [["bug"]], "the new epic in the project's group, labels copied")
    raises(gitlab.exceptions.GitlabCreateError, 400, lambda: issue.notes.create({"body": "/promote"}))
    eq(len([e for e in sub.epics.list(get_all=True) if e.title == "Promote me"]), 1, "no second epic")


@case("gitlab CLI: project-issue create and list --labels/--state, project-issue-note create")
def _():
    (project,) = need("project")
    made = cli("project-issue", "create", "--project-id", str(project.id), "--title", "From the CLI", "--labels", "cli,p3")
    eq((made["title"], sorted(made["labels"])), ("From the CLI", ["cli", "p3"]), "created issue")
    listed = cli("project-issue", "list", "--project-id", str(project.id), "--labels", "cli", "--state", "opened")
    eq([i["iid"] for i in listed], [made["iid"]], "listed by label and state")
    note = cli("project-issue-note", "create", "--project-id", str(project.id), "--issue-iid", str(made["iid"]), "--body", "via cli")
    eq(note["body"], "via cli", "note body")


@case("issue.delete() then get raises 404")
def _():
    (project,) = need("project")
    doomed = project.issues.create({"title": "to delete"})
    doomed.delete()
    raises(gitlab.exceptions.GitlabGetError, 404, lambda: project.issues.get(doomed.iid))


print("END", flush=True)
sys.exit(0)
