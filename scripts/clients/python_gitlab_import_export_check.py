"""A python-gitlab user's project export and import, case by case (issue 15 item 6).

Run by scripts/test-clients.mjs with GITLAB_URL and GITLAB_ROOT_TOKEN in the environment. Prints `PASS <case>` or
`FAIL <case> :: <reason>` per case and `END` when done. Written against python-gitlab 3.12 (Debian bookworm's
python3-gitlab), with its public client API only.

The story: a user makes a project with a commit, an issue with a label and a note, and a milestone; she asks for an
export with `project.exports.create()`, polls `export.refresh()` until it is finished and downloads it with
`export.download()` (a gzip'd tar whose VERSION is 0.2.4); she imports the bytes under a new path with
`gl.projects.import_project(...)` and polls `project.imports.get()` until finished; the new project then has the same
issue, label, note, milestone and commit.
"""
import gzip
import io
import secrets
import sys
import tarfile
import time

import gitlab
from pyharness import ROOT, TAG, case, check, client, eq, need, state

gl = client(ROOT)


def poll(read, done, what, timeout=60):
    until = time.time() + timeout
    while True:
        value = read()
        if done(value):
            return value
        check(time.time() < until, f"{what} not done after {timeout}s (last: {value!r})")
        time.sleep(0.3)


@case("export setup: a user (public email) with a project with a commit, a labelled issue with a note, a milestone")
def _():
    username = f"py-ie-{TAG}"
    user = gl.users.create({"email": f"{username}@example.com", "username": username, "name": f"Py IE {TAG}", "password": f"Pw-{secrets.token_hex(8)}-x9", "skip_confirmation": True})
    # A public email: an archive's users are matched by it when a non-administrator imports (members_mapper.rb).
    user.public_email = user.email
    user.save()
    token = user.impersonationtokens.create({"name": "ie", "scopes": ["api"]}).token
    me = client(token)
    project = me.projects.create({"name": f"Py Export {TAG}"})
    project.commits.create({"branch": "main", "commit_message": "Initial", "actions": [{"action": "create", "file_path": "README.md", "content": "hello\n"}]})
    project.labels.create({"name": "bug", "color": "#ff0000"})
    milestone = project.milestones.create({"title": "v1"})
    issue = project.issues.create({"title": "Exported issue", "labels": ["bug"], "milestone_id": milestone.id})
    issue.notes.create({"body": "A note that travels"})
    state.update(me=me, project=project)


@case("project.exports.create(), export.refresh() until finished, export.download() is a 0.2.4 archive")
def _():
    (project,) = need("project")
    export = project.exports.create()
    poll(lambda: (export.refresh(), export.export_status)[1], lambda s: s == "finished", "export")
    eq(export.export_status, "finished", "export_status")
    check("api_url" in export._links, f"_links: {export._links!r}")
    data = export.download()
    check(isinstance(data, bytes) and data[:2] == b"\x1f\x8b", "download is gzip")
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(data))) as tar:
        names = {m.name.lstrip("./") for m in tar.getmembers()}
        eq(tar.extractfile([m for m in tar.getmembers() if m.name.lstrip("./") == "VERSION"][0]).read().decode().strip(), "0.2.4", "VERSION")
    for name in ("tree/project.json", "tree/project/issues.ndjson", "project.bundle"):
        check(name in names, f"{name} missing from {sorted(names)[:20]}")
    state.update(archive=data)


@case("gl.projects.import_project(file, path, namespace), project.imports.get() until finished")
def _():
    me, archive, source = need("me", "archive", "project")
    path = f"py-imported-{TAG}"
    started = me.projects.import_project(io.BytesIO(archive), path=path, name=f"Py Imported {TAG}", namespace=source.namespace["full_path"])
    check(started["import_status"] in ("scheduled", "started", "finished"), f"import_status {started['import_status']!r}")
    project = me.projects.get(started["id"], lazy=True)
    status = poll(lambda: project.imports.get(), lambda s: s.import_status in ("finished", "failed"), "import")
    eq(status.import_status, "finished", "import_status")
    eq(status.failed_relations, [], "failed_relations")
    state.update(imported=me.projects.get(started["id"]))


@case("the imported project has the same issue, label, note, milestone and commit")
def _():
    source, imported = need("project", "imported")
    (issue,) = imported.issues.list(all=True)
    eq([issue.title, issue.labels, issue.milestone["title"]], ["Exported issue", ["bug"], "v1"], "issue")
    eq([n.body for n in issue.notes.list(all=True) if not n.system], ["A note that travels"], "notes")
    eq([lb.name for lb in imported.labels.list(all=True)], ["bug"], "labels")
    eq([c.id for c in imported.commits.list(all=True)], [c.id for c in source.commits.list(all=True)], "commit ids")
    eq(imported.files.raw("README.md", ref="main"), b"hello\n", "README.md")
    eq(imported.import_status, "finished", "GET /projects/:id import_status")


print("END", flush=True)
sys.exit(0)
