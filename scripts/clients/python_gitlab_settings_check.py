"""A python-gitlab administrator's application-settings workflow against this server, case by case (issue 17).

Run by scripts/test-clients.mjs with GITLAB_URL and GITLAB_ROOT_TOKEN in the environment. Prints `PASS <case>` or
`FAIL <case> :: <reason>` per case and `END` when done. Written against python-gitlab 3.12 (Debian bookworm's
python3-gitlab): `gl.settings.get()` reads `/application/settings`; `settings.save()` PUTs only the attributes
changed on the object, as JSON, with list-valued settings (its `_types` ArrayAttribute) sent as JSON arrays
(update() does not transform them into `key[]` form); a refused PUT raises GitlabUpdateError.

The story: the administrator lowers the default projects limit, restricts public visibility and turns web sign-in
off through its legacy alias `signin_enabled`; reads them back; sees a new user get the new limit and a user's
public project refused; then restores every setting. A bad enum value is refused with GitLab's message.
"""
import secrets
import sys

import gitlab
from pyharness import ROOT, TAG, case, check, client, eq, need, raises, state

gl = client(ROOT)


def new_user(prefix):
    username = f"py-{prefix}-{TAG}"
    return gl.users.create(
        {"email": f"{username}@example.com", "username": username, "name": f"Py {prefix} {TAG}", "password": f"Pw-{secrets.token_hex(8)}-x9", "skip_confirmation": True}
    )


@case("gl.settings.get() answers the instance's settings")
def _():
    settings = gl.settings.get()
    check(isinstance(settings.default_projects_limit, int), "default_projects_limit is an integer")
    check(isinstance(settings.restricted_visibility_levels, list), "restricted_visibility_levels is a list")
    eq(settings.signin_enabled, settings.password_authentication_enabled_for_web, "signin_enabled mirrors password_authentication_enabled_for_web")
    # What the restore case puts back.
    state.update(
        original={
            "default_projects_limit": settings.default_projects_limit,
            "restricted_visibility_levels": list(settings.restricted_visibility_levels),
            "signin_enabled": settings.signin_enabled,
        }
    )


@case("settings.save() changes an integer, a list and a legacy alias; gl.settings.get() reads them back")
def _():
    need("original")
    settings = gl.settings.get()
    settings.default_projects_limit = 7
    settings.restricted_visibility_levels = ["public"]
    settings.signin_enabled = False
    settings.save()
    eq(settings.default_projects_limit, 7, "default_projects_limit in the PUT answer")
    again = gl.settings.get()
    eq(again.default_projects_limit, 7, "default_projects_limit")
    eq(again.restricted_visibility_levels, ["public"], "restricted_visibility_levels")
    eq(again.signin_enabled, False, "signin_enabled")
    eq(again.password_authentication_enabled_for_web, False, "password_authentication_enabled_for_web (the alias's target)")
    state.update(changed=True)


@case("the settings take effect: a new user's projects_limit, a user's public project refused")
def _():
    need("changed")
    user = new_user("settings")
    eq(user.projects_limit, 7, "projects_limit of a user created after the change")
    raises(
        gitlab.exceptions.GitlabCreateError,
        400,
        lambda: gl.projects.create({"name": f"pub-{TAG}", "visibility": "public"}, sudo=user.username),
        "public has been restricted by your GitLab administrator",
    )
    project = gl.projects.create({"name": f"priv-{TAG}", "visibility": "private"}, sudo=user.username)
    eq(project.visibility, "private", "a private project is still allowed")


@case("a refused PUT (value outside the enum) raises GitlabUpdateError with GitLab's message")
def _():
    settings = gl.settings.get()
    settings.default_branch_protection = 9
    raises(gitlab.exceptions.GitlabUpdateError, 400, settings.save, "default_branch_protection does not have a valid value")
    raises(gitlab.exceptions.GitlabUpdateError, 400, lambda: gl.settings.update(new_data={"restricted_visibility_levels": ["secret"]}))
    eq(gl.settings.get().default_branch_protection, 2, "default_branch_protection unchanged")


@case("a non-administrator is refused: 403 on get and update")
def _():
    user = new_user("settings-plain")
    raises(gitlab.exceptions.GitlabGetError, 403, lambda: gl.settings.get(sudo=user.username))
    raises(gitlab.exceptions.GitlabUpdateError, 403, lambda: gl.settings.update(new_data={"default_projects_limit": 1}, sudo=user.username))


@case("settings.save() restores the original settings")
def _():
    (original,) = need("original")
    settings = gl.settings.get()
    for name, value in original.items():
        setattr(settings, name, value)
    settings.save()
    again = gl.settings.get()
    for name, value in original.items():
        eq(getattr(again, name), value, name)
    eq(new_user("settings-after").projects_limit, original["default_projects_limit"], "projects_limit after restore")


print("END", flush=True)
sys.exit(0)
