"""Root's copies out of the staff's folders: folders and plain files copied, links, FIFOs and hard links named
and left out (coursedir/tree_copy.py; issue 58)."""

from __future__ import annotations

import os

from instructor.coursedir.tree_copy import copy_tree


def test_a_tree_is_copied_and_what_root_must_not_follow_is_left_out(tmp_path):
    top = tmp_path / "01_rnn"
    (top / "figures").mkdir(parents=True)
    (top / "01_rnn.ipynb").write_text("{}")
    (top / "figures" / "rnn.svg").write_text("<svg/>")
    secret = tmp_path / "secret"
    secret.write_text("root's own")
    (top / "figures" / "linked.svg").symlink_to(secret)
    (top / "data").symlink_to(tmp_path)  # a folder as a link: not walked
    os.mkfifo(top / "pipe")
    os.link(secret, top / "hard.txt")
    (top / "big.bin").write_bytes(b"x" * 101)
    (top / ".ipynb_checkpoints").mkdir()
    into = tmp_path / "copy"
    into.mkdir()
    left_out = copy_tree(top, into, limit=100, skip=lambda name: name == ".ipynb_checkpoints")
    assert sorted(left_out) == [
        "01_rnn/big.bin: over 100 bytes, left out",
        "01_rnn/data: a link, left out",
        "01_rnn/figures/linked.svg: a link, left out",
        "01_rnn/hard.txt: a file with other names elsewhere (a hard link), left out",
        "01_rnn/pipe: not a regular file, left out",
    ]
    copied = sorted(str(p.relative_to(into)) for p in into.rglob("*"))
    assert copied == ["01_rnn.ipynb", "figures", "figures/rnn.svg"]
