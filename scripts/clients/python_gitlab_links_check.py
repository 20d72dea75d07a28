"""A python-gitlab user's linked issues and resource events against this server, case by case (issue 18 item 2).

Run by scripts/test-clients.mjs with GITLAB_URL and GITLAB_ROOT_TOKEN in the environment. Prints `PASS <case>` or
`FAIL <case> :: <reason>` per case and `END` when done. Written against python-gitlab 3.12 (Debian bookworm's
python3-gitlab), through its own managers: issue.links (ProjectIssueLinkManager: list, create returning the source
and target issues, delete by issue_link_id), issue.resourcelabelevents / resourcemilestoneevents /
resourcestateevents and mr.resourcelabelevents / resourcestateevents (list and get).

The story: a planner links two issues of a project with one of another (relates_to, is_blocked_by), lists an issue's
links from either side, unlinks one; labels, a milestone and a close/reopen leave their events on the issue, and a
merge request's labels and merge leave theirs.
"""
import sys

import gitlab
from pyharness import ROOT, TAG, case, client, eq, need, raises, state

gl = client(ROOT)


@case("links setup: two projects, labels, a milestone and three issues")
def _():
    a = gl.projects.create({"name": f"Py Links A {TAG}", "visibility": "private"})
    b = gl.projects.create({"name": f"Py Links B {TAG}", "visibility": "private"})
    for name in ("bug", "ux"):
        a.labels.create({"name": name, "color": "#cc0000"})
    m = a.milestones.create({"title": f"v1-{TAG}"})
    i1 = a.issues.create({"title": "Checkout fails", "labels": ["bug"], "milestone_id": m.id})
    i2 = a.issues.create({"title": "Payment page"})
    i3 = b.issues.create({"title": "Fraud service"})
    state.update(a=a, b=b, m=m, i1=i1, i2=i2, i3=i3)


@case("issue.links.create: relates_to in the project, is_blocked_by across projects (stored reversed); 409 again")
def _():
    a, b, i1, i2, i3 = need("a", "b", "i1", "i2", "i3")
    src, dst = i1.links.create({"target_project_id": a.id, "target_issue_iid": i2.iid})
    eq((src.iid, dst.iid), (i1.iid, i2.iid), "source and target of relates_to")
    src, dst = i1.links.create({"target_project_id": b.id, "target_issue_iid": i3.iid, "link_type": "is_blocked_by"})
    # is_blocked_by is stored as the target blocking the source.
    eq((src.id, dst.id), (i3.id, i1.id), "source and target of is_blocked_by")
    raises(gitlab.exceptions.GitlabCreateError, 409, lambda: i2.links.create({"target_project_id": a.id, "target_issue_iid": i1.iid}), "already assigned")


@case("issue.links.list from either side: link types and issue_link_id")
def _():
    i1, i2, i3 = need("i1", "i2", "i3")
    of_1 = i1.links.list(get_all=True)
    eq([(x.iid, x.link_type) for x in of_1], [(i2.iid, "relates_to"), (i3.iid, "is_blocked_by")], "links of i1")
    of_3 = i3.links.list(get_all=True)
    eq([(x.id, x.link_type) for x in of_3], [(i1.id, "blocks")], "links of i3")
    state.update(link_12=of_1[0].issue_link_id)


@case("issue.links.delete(issue_link_id), and the system notes on both issues")
def _():
    a, i1, i2, link_12 = need("a", "i1", "i2", "link_12")
    i1.links.delete(link_12)
    eq([x.iid for x in i1.links.list(get_all=True)], [state["i3"].iid], "links of i1 after unlinking")
    notes = [n.body for n in a.issues.get(i2.iid).notes.list(get_all=True) if n.system]
    eq(sorted(notes), sorted([f"marked this issue as related to #{i1.iid}", f"removed the relation with #{i1.iid}"]), "i2's system notes")
    raises(gitlab.exceptions.GitlabDeleteError, 404, lambda: i1.links.delete(link_12))


@case("issue resource events: resourcelabelevents, resourcemilestoneevents, resourcestateevents (list, get)")
def _():
    a, m, i1 = need("a", "m", "i1")
    issue = a.issues.get(i1.iid)
    issue.labels = ["ux"]
    issue.state_event = "close"
    issue.save()
    issue.state_event = "reopen"
    issue.milestone_id = 0
    issue.save()
    labels = issue.resourcelabelevents.list(get_all=True)
    eq([(e.action, e.label["name"]) for e in labels], [("add", "bug"), ("remove", "bug"), ("add", "ux")], "label events")
    eq(issue.resourcelabelevents.get(labels[0].id).resource_id, issue.id, "one label event")
    eq([(e.action, e.milestone["id"]) for e in issue.resourcemilestoneevents.list(get_all=True)], [("add", m.id), ("remove", m.id)], "milestone events")
    eq([e.state for e in issue.resourcestateevents.list(get_all=True)], ["closed", "reopened"], "state events")


@case("merge request resource events: mr.resourcelabelevents and mr.resourcestateevents after a merge")
def _():
    (a,) = need("a")
    a.commits.create({"branch": "main", "commit_message": "init", "actions": [{"action": "create", "file_path": "README.md", "content": "hi"}]})
    a.branches.create({"branch": "feature", "ref": "main"})
    a.commits.create({"branch": "feature", "commit_message": "work", "actions": [{"action": "create", "file_path": "f.txt", "content": "x"}]})
    mr = a.mergerequests.create({"source_branch": "feature", "target_branch": "main", "title": "Feature", "labels": ["bug"]})
    mr.labels = ["bug", "ux"]
    mr.save()
    mr.merge()
    eq([(e.action, e.label["name"], e.resource_type) for e in mr.resourcelabelevents.list(get_all=True)], [("add", "bug", "MergeRequest"), ("add", "ux", "MergeRequest")], "mr label events")
    eq([e.state for e in mr.resourcestateevents.list(get_all=True)], ["merged"], "mr state events")


print("END", flush=True)
sys.exit(0)
