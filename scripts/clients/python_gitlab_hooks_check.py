"""A python-gitlab maintainer's project webhooks against this server, case by case (issue 18 item 4).

Run by scripts/test-clients.mjs with GITLAB_URL and GITLAB_ROOT_TOKEN in the environment. Prints `PASS <case>` or
`FAIL <case> :: <reason>` per case and `END` when done. Written against python-gitlab 3.12: `project.hooks`
creates, lists, gets, saves and deletes (url_variables and custom_headers pass through as lists); the test
trigger, a hook's events and their resend, and the url_variables/custom_headers routes have no method there and
go through `gl.http_post` / `gl.http_list` / `gl.http_request`. The first hooks point at a public name and take no
event this script causes; the late-route cases deliver to a receiver the script runs on 127.0.0.1.
"""
import http.server
import json
import threading

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


# The late hook routes (test trigger, events, resend) have no method in python-gitlab 3.12 (gitlab/v4/objects/hooks.py
# has only CRUD), so they go through gl.http_post / gl.http_list. They deliver for real: to a receiver this script
# runs on 127.0.0.1, with local hook requests allowed by root for these cases only (restored after).
received = []


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        received.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": json.loads(body or b"null")})
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        self.wfile.write(b"py ok")

    def log_message(self, *args):
        pass


def delivered(path):
    return [r for r in received if r["path"] == path]


@case("setup: a receiver on 127.0.0.1, local hook requests allowed, a hook to it and an issue to test with")
def _():
    (project,) = need("project")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    settings = gl.settings.get()
    state.update(server=server, local_before=settings.allow_local_requests_from_web_hooks_and_services)
    settings.allow_local_requests_from_web_hooks_and_services = True
    settings.save()
    receiver = f"http://127.0.0.1:{server.server_address[1]}"
    hook = project.hooks.create({"url": f"{receiver}/project", "push_events": False, "issues_events": True, "token": f"py-local-{TAG}"})
    project.issues.create({"title": "sample for the test trigger"})
    state.update(receiver=receiver, local_hook_id=hook.id)


@case("POST .../hooks/:id/test/issues_events (gl.http_post): 201 Created, the receiver gets an Issue Hook")
def _():
    project, hook_id = need("project", "local_hook_id")
    eq(gl.http_post(f"/projects/{project.id}/hooks/{hook_id}/test/issues_events"), {"message": "201 Created"}, "answer")
    (got,) = delivered("/project")
    eq([got["headers"].get("x-gitlab-event"), got["headers"].get("x-gitlab-token")], ["Issue Hook", f"py-local-{TAG}"], "headers")
    eq([got["body"]["object_kind"], got["body"]["object_attributes"]["title"]], ["issue", "sample for the test trigger"], "payload")


@case("GET .../hooks/:id/events (gl.http_list): the delivery, with what was sent and answered")
def _():
    project, hook_id, receiver = need("project", "local_hook_id", "receiver")
    (log,) = gl.http_list(f"/projects/{project.id}/hooks/{hook_id}/events", get_all=True)
    eq([log["url"], log["trigger"], log["response_status"], log["response_body"]], [f"{receiver}/project", "issue_hooks", "200", "py ok"], "log")
    eq(log["request_data"]["object_kind"], "issue", "request_data")
    eq(log["request_headers"].get("X-Gitlab-Token"), "[REDACTED]", "token not logged")
    eq(gl.http_list(f"/projects/{project.id}/hooks/{hook_id}/events", status="server_failure", get_all=True), [], "status filter")
    state.update(log=log)


@case("POST .../hooks/:id/events/:log_id/resend (gl.http_post): sent again as it was, logged again")
def _():
    project, hook_id, log = need("project", "local_hook_id", "log")
    eq(gl.http_post(f"/projects/{project.id}/hooks/{hook_id}/events/{log['id']}/resend"), {"response_status": 200}, "answer")
    first, again = delivered("/project")
    eq(again["body"], first["body"], "same payload")
    eq(again["headers"].get("idempotency-key"), first["headers"].get("idempotency-key"), "same idempotency key")
    eq(len(gl.http_list(f"/projects/{project.id}/hooks/{hook_id}/events", get_all=True)), 2, "logged")
    raises(gitlab.exceptions.GitlabHttpError, 404, lambda: gl.http_post(f"/projects/{project.id}/hooks/{hook_id}/events/{log['id'] + 100000}/resend"))


@case("group hook: test/push_events with the group's project, its events and a resend")
def _():
    (receiver,) = need("receiver")
    group = gl.groups.create({"name": f"py-hooks-g-{TAG}", "path": f"py-hooks-g-{TAG}"})
    state.update(group=group)
    inner = gl.projects.create({"name": f"py-hooks-in-{TAG}", "namespace_id": group.id})
    inner.files.create({"file_path": "README.md", "branch": "main", "content": "hi", "commit_message": "first"})
    hook = group.hooks.create({"url": f"{receiver}/group", "push_events": True})
    eq(gl.http_post(f"/groups/{group.id}/hooks/{hook.id}/test/push_events"), {"message": "201 Created"}, "test answer")
    (got,) = delivered("/group")
    eq([got["headers"].get("x-gitlab-event"), got["body"]["object_kind"], got["body"]["project_id"]], ["Push Hook", "push", inner.id], "delivered")
    (log,) = gl.http_list(f"/groups/{group.id}/hooks/{hook.id}/events", get_all=True)
    eq([log["trigger"], log["response_status"]], ["push_hooks", "200"], "group log")
    eq(gl.http_post(f"/groups/{group.id}/hooks/{hook.id}/events/{log['id']}/resend"), {"response_status": 200}, "resend answer")
    eq(len(delivered("/group")), 2, "resent")
    raises(gitlab.exceptions.GitlabHttpError, 400, lambda: gl.http_post(f"/groups/{group.id}/hooks/{hook.id}/test/unknown_events"), "trigger does not have a valid value")


@case("teardown: local hook requests as they were, the receiver stopped")
def _():
    server, before = need("server", "local_before")
    settings = gl.settings.get()
    settings.allow_local_requests_from_web_hooks_and_services = before
    settings.save()
    server.shutdown()
    if "group" in state:
        state["group"].delete()
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
    eq([h.id for h in project.hooks.list(get_all=True)], [state["local_hook_id"]] if "local_hook_id" in state else [], "only the local one left")
    raises(gitlab.exceptions.GitlabGetError, 404, lambda: project.hooks.get(hook_id))
    project.delete()


print("END", flush=True)
