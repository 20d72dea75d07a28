"""A python-gitlab user's discussions against this server, case by case (issue 18).

Run by scripts/test-clients.mjs with GITLAB_URL and GITLAB_ROOT_TOKEN in the environment. Prints `PASS <case>` or
`FAIL <case> :: <reason>` per case and `END` when done. Written against python-gitlab 3.12 (Debian bookworm's
python3-gitlab): issue.discussions, mr.discussions (with a diff position, update to resolve), commit.discussions and
each discussion's notes manager.

The story: a maintainer opens an issue and a thread on it, replies, edits and deletes; a merge request changes a
file, a comment lands on a changed line, the project asks for every discussion resolved before a merge, the merge
is refused until the thread is resolved; a commit gets a thread of its own.
"""
import gitlab
from pyharness import ROOT, TAG, case, check, client, eq, need, raises, state

gl = client(ROOT)


@case("setup: a project with a file")
def _():
    project = gl.projects.create({"name": f"py-disc-{TAG}", "visibility": "private"})
    project.commits.create({"branch": "main", "commit_message": "init", "actions": [{"action": "create", "file_path": "app.py", "content": "a = 1\nb = 2\nc = 3\n"}]})
    state.update(project=project)


@case("issue.discussions.create / list / get; d.notes.create, note.save, note.delete")
def _():
    (project,) = need("project")
    issue = project.issues.create({"title": "Crash on start"})
    d = issue.discussions.create({"body": "Which version?"})
    check(len(d.id) == 40, f"discussion id {d.id!r}")
    eq(d.individual_note, False, "individual_note")
    eq([n["type"] for n in d.attributes["notes"]], ["DiscussionNote"], "note types")
    reply = d.notes.create({"body": "1.2.3"})
    eq(reply.type, "DiscussionNote", "reply type")
    reply.body = "1.2.4"
    reply.save()
    eq(d.notes.get(reply.id).body, "1.2.4", "edited reply")
    listed = issue.discussions.list(get_all=True)
    eq([len(x.attributes["notes"]) for x in listed if x.id == d.id], [2], "thread of two")
    # A plain note is an individual-note discussion.
    plain = issue.notes.create({"body": "+1"})
    eq([x.individual_note for x in issue.discussions.list(get_all=True) if x.attributes["notes"][0]["id"] == plain.id], [True], "plain note")
    d.notes.get(reply.id).delete()
    eq(len(issue.discussions.get(d.id).attributes["notes"]), 1, "after delete")
    raises(gitlab.exceptions.GitlabGetError, 404, lambda: issue.discussions.get("0" * 40), "Discussion Not Found")


@case("mr.discussions.create(position=...) makes a DiffNote; a bad line is a 400")
def _():
    (project,) = need("project")
    project.branches.create({"branch": "feature", "ref": "main"})
    project.commits.create({"branch": "feature", "commit_message": "b", "actions": [{"action": "update", "file_path": "app.py", "content": "a = 1\nb = 20\nc = 3\n"}]})
    mr = project.mergerequests.create({"title": "Change b", "source_branch": "feature", "target_branch": "main"})
    mr = project.mergerequests.get(mr.iid)
    refs = mr.diff_refs
    pos = {**refs, "position_type": "text", "old_path": "app.py", "new_path": "app.py", "new_line": 2}
    d = mr.discussions.create({"body": "Why 20?", "position": pos})
    note = d.attributes["notes"][0]
    eq([note["type"], note["resolvable"], note["resolved"]], ["DiffNote", True, False], "diff note")
    eq([note["position"]["new_line"], note["position"]["head_sha"]], [2, refs["head_sha"]], "position")
    raises(gitlab.exceptions.GitlabCreateError, 400, lambda: mr.discussions.create({"body": "x", "position": {**pos, "new_line": 42}}), "line_code")
    state.update(mr=mr, diff=d)


@case("only_allow_merge_if_all_discussions_are_resolved: merge refused, mr.discussions.update(resolved=True), merge")
def _():
    project, mr, d = need("project", "mr", "diff")
    project.only_allow_merge_if_all_discussions_are_resolved = True
    project.save()
    eq(gl.projects.get(project.id).only_allow_merge_if_all_discussions_are_resolved, True, "setting")
    fresh = project.mergerequests.get(mr.iid)
    eq([fresh.blocking_discussions_resolved, fresh.detailed_merge_status], [False, "discussions_not_resolved"], "blocked")
    raises(gitlab.exceptions.GitlabMRClosedError, 405, lambda: fresh.merge())
    mr.discussions.update(d.id, {"resolved": True})
    got = mr.discussions.get(d.id)
    eq([n["resolved"] for n in got.attributes["notes"]], [True], "resolved")
    fresh = project.mergerequests.get(mr.iid)
    eq(fresh.blocking_discussions_resolved, True, "unblocked")
    fresh.merge()
    eq(project.mergerequests.get(mr.iid).state, "merged", "merged")


@case("commit.discussions.create / list; a reply through its notes")
def _():
    (project,) = need("project")
    commit = project.commits.get("main")
    d = commit.discussions.create({"body": "Nice"})
    eq(d.attributes["notes"][0]["noteable_type"], "Commit", "noteable_type")
    d.notes.create({"body": "Thanks"})
    eq([len(x.attributes["notes"]) for x in commit.discussions.list(get_all=True) if x.id == d.id], [2], "commit thread")


print("END", flush=True)
