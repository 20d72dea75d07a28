"""A python-gitlab user's tags, merge base, commit refs and archives workflow against this server, case by case (issue 18).

Run by scripts/test-clients.mjs with GITLAB_URL and GITLAB_ROOT_TOKEN in the environment. Prints `PASS <case>` or
`FAIL <case> :: <reason>` per case and `END` when done. Written against python-gitlab 3.12 (Debian bookworm's
python3-gitlab).

The story: the administrator creates a project with two branches, tags them with `project.tags.create` (lightweight
and annotated), lists, gets and deletes tags, protects `v*` with `project.protectedtags` so a developer (through sudo)
is refused, asks `project.repository_merge_base` for the fork point, `commit.refs()` for the branches and tags that
contain a commit, and downloads `project.repository_archive(format='zip')` and the default tar.gz, then unpacks them.
"""
import io
import secrets
import sys
import tarfile
import zipfile

import gitlab
from pyharness import ROOT, TAG, case, check, client, eq, need, raises, state

gl = client(ROOT)


@case("setup: a project with main and a feature branch, and a developer")
def _():
    project = gl.projects.create({"name": f"py-tags-{TAG}"})
    base = project.commits.create({"branch": "main", "commit_message": "init", "actions": [{"action": "create", "file_path": "README.md", "content": "hello\n"}]})
    feature = project.commits.create(
        {"branch": "feature", "start_branch": "main", "commit_message": "feature", "actions": [{"action": "create", "file_path": "src/f.txt", "content": "f\n"}]}
    )
    username = f"py-tags-dev-{TAG}"
    dev = gl.users.create({"email": f"{username}@example.com", "username": username, "name": "Py Tags Dev", "password": f"Pw-{secrets.token_hex(8)}-x9", "skip_confirmation": True})
    project.members.create({"user_id": dev.id, "access_level": 30})
    state.update(project=project, base=base.id, feature=feature.id, dev=dev.username)


@case("project.tags.create makes a lightweight tag and an annotated one")
def _():
    project, base, feature = need("project", "base", "feature")
    light = project.tags.create({"tag_name": "v1.0.0", "ref": "main"})
    eq(light.name, "v1.0.0", "name")
    eq(light.message, None, "lightweight message")
    eq(light.target, base, "lightweight target")
    eq(light.commit["id"], base, "commit.id")
    eq(light.protected, False, "protected")
    annotated = project.tags.create({"tag_name": "v1.1.0", "ref": "feature", "message": "Release 1.1"})
    eq(annotated.message, "Release 1.1", "annotated message")
    check(annotated.target != feature and len(annotated.target) == 40, "an annotated tag's target is its tag object")
    eq(annotated.commit["id"], feature, "annotated commit.id")
    check(annotated.created_at is not None, "created_at")


@case("project.tags.list (search, order_by) and project.tags.get")
def _():
    (project,) = need("project")
    names = [t.name for t in project.tags.list(order_by="name", sort="asc", get_all=True)]
    eq(names, ["v1.0.0", "v1.1.0"], "names")
    eq([t.name for t in project.tags.list(search="^v1.1", get_all=True)], ["v1.1.0"], "search")
    eq(project.tags.get("v1.1.0").message, "Release 1.1", "get")
    raises(gitlab.exceptions.GitlabGetError, 404, lambda: project.tags.get("nope"))


@case("GitLab's create errors: an existing tag, an unknown ref")
def _():
    (project,) = need("project")
    raises(gitlab.exceptions.GitlabCreateError, 400, lambda: project.tags.create({"tag_name": "v1.0.0", "ref": "main"}), "Tag v1.0.0 already exists")
    raises(gitlab.exceptions.GitlabCreateError, 400, lambda: project.tags.create({"tag_name": "v9", "ref": "no-such-ref"}), "Target no-such-ref is invalid")


@case("project.protectedtags: a developer cannot create a protected tag, a maintainer can")
def _():
    project, dev = need("project", "dev")
    rule = project.protectedtags.create({"name": "rel-*", "create_access_level": 40})
    eq(rule.name, "rel-*", "name")
    eq(rule.create_access_levels[0]["access_level"], 40, "create_access_level")
    eq([p.name for p in project.protectedtags.list(get_all=True)], ["rel-*"], "list")
    raises(gitlab.exceptions.GitlabCreateError, 400, lambda: project.tags.create({"tag_name": "rel-1", "ref": "main"}, sudo=dev), "protected")
    eq(project.tags.create({"tag_name": "rel-1", "ref": "main"}).protected, True, "protected tag")
    project.protectedtags.delete("rel-*")
    raises(gitlab.exceptions.GitlabGetError, 404, lambda: project.protectedtags.get("rel-*"))


@case("project.repository_merge_base finds the fork point; unknown refs are a 400")
def _():
    project, base = need("project", "base")
    eq(project.repository_merge_base(["main", "feature"])["id"], base, "merge base")
    feature = need("feature")[0]
    # git merge-base A B C: A against a merge of B and C, so the tag on feature's head against main and feature is feature's head.
    eq(project.repository_merge_base(["v1.1.0", "main", "feature"])["id"], feature, "three refs, a tag among them")
    eq(project.repository_merge_base(["main", "v1.1.0", "feature"])["id"], base, "three refs, main first")
    raises(gitlab.exceptions.GitlabGetError, 400, lambda: project.repository_merge_base(["main", "nope"]), "Could not find ref: nope")


@case("commit.refs() lists the branches and tags containing a commit")
def _():
    project, base, feature = need("project", "base", "feature")
    refs = project.commits.get(base).refs()
    eq(
        refs,
        [{"type": "branch", "name": "feature"}, {"type": "branch", "name": "main"}, {"type": "tag", "name": "rel-1"}, {"type": "tag", "name": "v1.0.0"}, {"type": "tag", "name": "v1.1.0"}],
        "refs",
    )
    eq(project.commits.get(feature).refs("tag"), [{"type": "tag", "name": "v1.1.0"}], "tags only")


@case("project.repository_archive: zip of a tag, and the default tar.gz")
def _():
    project, feature = need("project", "feature")
    data = project.repository_archive(sha="v1.1.0", format="zip")
    prefix = f"{project.path}-v1.1.0-{feature}"
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        eq(z.read(f"{prefix}/src/f.txt"), b"f\n", "file in zip")
        eq(z.read(f"{prefix}/README.md"), b"hello\n", "README in zip")
    tgz = project.repository_archive()
    with tarfile.open(fileobj=io.BytesIO(tgz), mode="r:gz") as t:
        names = t.getnames()
        check(any(n.endswith("/README.md") for n in names), f"README.md in {names}")
        check(all(n.startswith(f"{project.path}-main-") for n in names), "prefix")
        member = next(m for m in t.getmembers() if m.name.endswith("/README.md"))
        eq(t.extractfile(member).read(), b"hello\n", "README in tar.gz")


@case("project.tags.delete removes a tag")
def _():
    (project,) = need("project")
    project.tags.delete("v1.0.0")
    raises(gitlab.exceptions.GitlabGetError, 404, lambda: project.tags.get("v1.0.0"))
    raises(gitlab.exceptions.GitlabDeleteError, 404, lambda: project.tags.delete("v1.0.0"))


print("END", flush=True)
sys.exit(0)
