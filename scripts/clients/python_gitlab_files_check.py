"""A python-gitlab user's repository files against this server, case by case (issue 18).

Run by scripts/test-clients.mjs with GITLAB_URL and GITLAB_ROOT_TOKEN in the environment. Prints `PASS <case>` or
`FAIL <case> :: <reason>` per case and `END` when done. Written against python-gitlab 3.12 (Debian bookworm's
python3-gitlab): project.files get/create/update/delete/raw/blame and ProjectFile.save()/delete(), which send the
path URL-encoded (`lib%2Fapp.py`), the update's `file_path` again in the body, and the delete's branch and message
as query parameters.

The story: a new project's first branch is created before anything was committed (GitLab commits an empty README.md
on the default branch first), then files are written, read, updated (with a stale last_commit_id refused), blamed
and deleted; a lockfile written through the files API shows up in the dependency list.
"""
import base64
import sys

import gitlab
from pyharness import ROOT, TAG, case, check, client, eq, need, raises, state

gl = client(ROOT)

PACKAGE_LOCK = """{
  "name": "app", "version": "1.0.0", "lockfileVersion": 3, "requires": true,
  "packages": {
    "": {"name": "app", "version": "1.0.0", "dependencies": {"lodash": "^4.17.20"}},
    "node_modules/lodash": {"version": "4.17.20", "resolved": "https://registry.npmjs.org/lodash/-/lodash-4.17.20.tgz"}
  }
}
"""


@case("project.branches.create on an empty project: README.md on main first, then the branch (201)")
def _():
    project = gl.projects.create({"name": f"Py Files {TAG}", "path": f"py-files-{TAG}", "visibility": "private"})
    eq(project.empty_repo, True, "empty_repo before")
    branch = project.branches.create({"branch": "feature", "ref": "main"})
    eq([branch.name, branch.commit["message"]], ["feature", "Add README.md"], "branch")
    readme = project.files.get(file_path="README.md", ref="main")
    eq([readme.decode(), readme.last_commit_id], [b"", branch.commit["id"]], "README.md")
    eq(gl.projects.get(project.id).default_branch, "main", "default_branch")
    state.update(project=project)


@case("project.files.create (text, base64, a dotted name, author fields) and files.get / raw")
def _():
    (project,) = need("project")
    made = project.files.create(
        {"file_path": "lib/app.py", "branch": "main", "content": "print(1)\n", "commit_message": "Add app", "author_name": "Ann", "author_email": "ann@example.com"}
    )
    eq([made.file_path, made.branch], ["lib/app.py", "main"], "create answer")
    project.files.create({"file_path": "bin/tool.tar.gz", "branch": "main", "encoding": "base64", "content": base64.b64encode(b"\x00\x01binary").decode(), "commit_message": "Add blob"})
    f = project.files.get(file_path="lib/app.py", ref="main")
    eq([f.file_name, f.file_path, f.decode(), f.ref, f.execute_filemode], ["app.py", "lib/app.py", b"print(1)\n", "main", False], "files.get")
    eq(project.files.raw(file_path="bin/tool.tar.gz", ref="main"), b"\x00\x01binary", "files.raw of base64 content")
    head = project.commits.get(f.last_commit_id)
    eq([head.author_name, head.author_email, head.title], ["Ann", "ann@example.com", "Add app"], "the file's commit")
    raises(gitlab.exceptions.GitlabCreateError, 400, lambda: project.files.create({"file_path": "lib/app.py", "branch": "main", "content": "x", "commit_message": "again"}), "A file with this name already exists")
    raises(gitlab.exceptions.GitlabCreateError, 400, lambda: project.files.create({"file_path": "x.txt", "branch": "nope", "content": "x", "commit_message": "x"}), "You can only create or edit files when you are on a branch")
    state.update(first=f.last_commit_id)


@case("ProjectFile.save() updates; files.update with a stale last_commit_id is refused (400)")
def _():
    project, first = need("project", "first")
    f = project.files.get(file_path="lib/app.py", ref="main")
    f.content = "print(2)\n"
    f.save(branch="main", commit_message="Update app")
    eq(project.files.raw(file_path="lib/app.py", ref="main"), b"print(2)\n", "after save")
    raises(
        gitlab.exceptions.GitlabUpdateError,
        400,
        lambda: project.files.update("lib/app.py", {"branch": "main", "content": "print(3)\n", "commit_message": "stale", "last_commit_id": first}),
        "You are attempting to update a file that has changed since you started editing it.",
    )
    project.files.update("lib/app.py", {"branch": "main", "content": "print(2)\nprint(3)\n", "commit_message": "More", "last_commit_id": project.files.get(file_path="lib/app.py", ref="main").last_commit_id})
    state.update(updated=True)


@case("project.files.blame: one group per commit")
def _():
    project, _u = need("project", "updated")
    blame = project.files.blame(file_path="lib/app.py", ref="main")
    eq([(g["commit"]["message"], g["lines"]) for g in blame], [("Update app", ["print(2)"]), ("More", ["print(3)"])], "blame")


@case("ProjectFile.delete() and files.delete (branch and message in the query); a deleted file is 404")
def _():
    (project,) = need("project")
    project.files.get(file_path="lib/app.py", ref="main").delete(branch="main", commit_message="Remove app")
    project.files.delete(file_path="bin/tool.tar.gz", branch="main", commit_message="Remove blob")
    raises(gitlab.exceptions.GitlabGetError, 404, lambda: project.files.get(file_path="lib/app.py", ref="main"), "File Not Found")
    raises(gitlab.exceptions.GitlabDeleteError, 400, lambda: project.files.delete(file_path="lib/app.py", branch="main", commit_message="again"), "A file with this name doesn't exist")


@case("a package-lock.json written with project.files.create shows up in the dependency list")
def _():
    (project,) = need("project")
    project.files.create({"file_path": "package-lock.json", "branch": "main", "content": PACKAGE_LOCK, "commit_message": "Lock"})
    rows = gl.http_list(f"/projects/{project.id}/dependencies", get_all=True)
    eq([f"{d['dependency_file_path']} {d['name']}@{d['version']}" for d in rows], ["package-lock.json lodash@4.17.20"], "dependencies")
    check(project.files.get(file_path="package-lock.json", ref="main").size == len(PACKAGE_LOCK), "size")


print("END", flush=True)
sys.exit(0)
