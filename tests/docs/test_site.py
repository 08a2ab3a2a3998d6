"""The documentation site (docs/): does it build with warnings as errors, and does every link land?

Sphinx warns on a Markdown link to a page or heading that does not exist,
on a docstring it cannot read and on a command whose parser fails to build;
``-W`` makes each of those fail this test. Links off the site cannot be
fetched where CI runs (no network), so they are only required to be https.
"""

from __future__ import annotations

import re
import subprocess
import sys

from instructor.paths import REPO_ROOT

DOCS = REPO_ROOT / "docs"
#: a Markdown link or image target: [text](target)
LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_site_builds_with_warnings_as_errors(tmp_path):
    """Does `sphinx -W` build every page, with the command reference and the student package's API?"""
    out = tmp_path / "html"
    run = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(DOCS), str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    pages = {p.stem for p in out.glob("*.html")}
    pages_on_disk = {p.stem for p in DOCS.glob("*.md")}
    assert pages_on_disk <= pages, f"pages not built: {sorted(pages_on_disk - pages)}"
    commands = (out / "commands.html").read_text()
    for verb in ("grade", "generate", "feedback", "export"):
        assert f"course {verb}" in commands, f"the command reference lacks `course {verb}`"
    api = (out / "api.html").read_text()
    assert "course.ops.softmax" in api, "the API page lacks course.ops.softmax"


def _links(path):
    text = path.read_text()
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # code blocks hold no links
    return [m.group(1) for m in LINK.finditer(text)]


def test_readme_links_land():
    """Does every relative link of the README point at a file of the repository, and every other one at https?"""
    readme = REPO_ROOT / "README.md"
    for target in _links(readme):
        if re.match(r"[a-z]+:", target):
            assert target.startswith("https://"), f"README links off the site without https: {target}"
            continue
        file = target.split("#")[0]
        assert (REPO_ROOT / file).exists(), f"README links to a missing file: {target}"


def test_every_page_is_in_the_table_of_contents():
    """Is every page of docs/ reachable from the front page's table of contents?"""
    index = (DOCS / "index.md").read_text()
    for page in DOCS.glob("*.md"):
        if page.stem != "index":
            assert re.search(rf"^{re.escape(page.stem)}$", index, flags=re.M), f"{page.name} is in no table of contents"
