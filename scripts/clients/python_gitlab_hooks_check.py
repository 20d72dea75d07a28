"""A python-gitlab maintainer's project webhooks against this server, case by case (issue 18 item 4).

Run by scripts/test-clients.mjs with GITLAB_URL and GITLAB_ROOT_TOKEN in the environment. Prints `PASS <case>` or
`FAIL <case> :: <reason>` per case and `END` when done. Written against python-gitlab 3.12: `project.hooks`
creates, lists, gets, saves and deletes (url_variables and custom_headers pass through as lists); the test
trigger and the url_variables/custom_headers routes have no method there and go through `gl.http_post` / `gl.http_request`.
The hooks point at a public name and take no event this script causes, so nothing is delivered.
"""
import gitlab
from pyharness import ROOT, TAG, case, check, client, eq, need, raises, state

gl = client(ROOT)
URL = "https://example.com/hooks/ci"


@case("setup: a project")
def _():
    project = gl.projects.create({"name": f"py-hooks-{TAG}"})
    state.update(project=project)


@case("project.hooks.create() with event flags and a token the answer never shows")
def _():
    (project,) = need("project")
    hook = project.hooks.create({"url": URL, "push_events": False, "issues_events": True, "merge_requests_events": True, "token": f"py-secret-{TAG}"})
    eq(hook.url, URL, "url")
    eq([hook.push_events, hook.issues_events, hook.merge_requests_events, hook.note_events], [False, True, True, False], "flags")
    eq(hook.project_id, project.id, "project_id")
    eq(hook.alert_status, "executable", "alert_status")
    check("token" not in hook.attributes, "no token attribute")
    state.update(hook_id=hook.id)


@case("project.hooks.list() and project.hooks.get()")
def _():
    project, hook_id = need("project", "hook_id")
    eq([h.id for h in project.hooks.list(get_all=True)], [hook_id], "listed")
    hook = project.hooks.get(hook_id)
    eq(hook.enable_ssl_verification, True, "enable_ssl_verification default")
    eq(hook.push_events_branch_filter, None, "push_events_branch_filter")


@case("hook.save() edits flags and the branch filter")
def _():
    project, hook_id = need("project", "hook_id")
    hook = project.hooks.get(hook_id)
    hook.note_events = True
    hook.push_events_branch_filter = "release/*"
    hook.save()
    again = project.hooks.get(hook_id)
    eq([again.note_events, again.push_events_branch_filter, again.issues_events], [True, "release/*", True], "after save")


@case("refusals: a local URL (422 Invalid url given), an untestable trigger (422), another project's hook (404)")
def _():
    project, hook_id = need("project", "hook_id")
    raises(gitlab.exceptions.GitlabCreateError, 422, lambda: project.hooks.create({"url": "http://127.0.0.1:9/x"}), "Invalid url given")
    err = raises(gitlab.exceptions.GitlabHttpError, 422, lambda: gl.http_post(f"/projects/{project.id}/hooks/{hook_id}/test/issues_events"))
    check("Ensure the project has issues." in str(err.error_message), f"test trigger message {err.error_message!r}")
    other = gl.projects.create({"name": f"py-hooks-other-{TAG}"})
    raises(gitlab.exceptions.GitlabGetError, 404, lambda: other.hooks.get(hook_id))
    other.delete()


@case("url_variables and custom_headers: create and save take them as lists, answers show keys only; their routes by gl.http_request")
def _():
    # python-gitlab 3.12 has no manager for …/url_variables/:key or …/custom_headers/:key (they answer
    # 204 with no body, which http_put cannot parse), so those go through gl.http_request.
    (project,) = need("project")
    secret = f"py-var-secret-{TAG}"
    hook = project.hooks.create({"url": "https://example.com/{seg}", "push_events": False, "url_variables": [{"key": "seg", "value": secret}], "custom_headers": [{"key": "X-Py", "value": secret}]})
    eq([hook.url_variables, hook.custom_headers], [[{"key": "seg"}], [{"key": "X-Py"}]], "keys on create")
    check(secret not in str(hook.attributes), "no value in the answer")
    # python-gitlab 3.12 copies a list attribute it was asked for into the next save (it cannot see
    # in-place changes), and GitLab requires `value` in each item: save from an object not read that way.
    fresh = project.hooks.get(hook.id)
    fresh.custom_headers = [{"key": "X-Second", "value": "v"}]
    fresh.save()
    eq(project.hooks.get(hook.id).custom_headers, [{"key": "X-Py"}, {"key": "X-Second"}], "merged on save")
    base = f"/projects/{project.id}/hooks/{hook.id}"
    eq(gl.http_request("put", f"{base}/url_variables/extra", post_data={"value": "e"}).status_code, 204, "PUT url variable")
    eq(gl.http_request("delete", f"{base}/custom_headers/X-Second").status_code, 204, "DELETE custom header")
    again = project.hooks.get(hook.id)
    eq([again.url_variables, again.custom_headers], [[{"key": "seg"}, {"key": "extra"}], [{"key": "X-Py"}]], "after the routes")
    raises(gitlab.exceptions.GitlabHttpError, 404, lambda: gl.http_request("delete", f"{base}/url_variables/nope"), "404 URL variable Not Found")
    raises(gitlab.exceptions.GitlabHttpError, 422, lambda: gl.http_request("put", f"{base}/url_variables/seg", post_data={"value": "elsewhere"}), "Illegal key or value")
    project.hooks.delete(hook.id)


@case("project.hooks.delete()")
def _():
    project, hook_id = need("project", "hook_id")
    project.hooks.delete(hook_id)
    eq(project.hooks.list(get_all=True), [], "none left")
    raises(gitlab.exceptions.GitlabGetError, 404, lambda: project.hooks.get(hook_id))
    project.delete()


print("END", flush=True)
