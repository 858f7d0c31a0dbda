"""Process helpers of the fault tests (no psutil: /proc): a process's descendants, whether one is alive, its
command line, and who else holds its pipes."""
from __future__ import annotations

import contextlib
import os
from pathlib import Path


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        kids.setdefault(ppid, []).append(int(entry))
    return kids


def descendants(pid: int) -> list[int]:
    kids, out, todo = _children(), [], [pid]
    while todo:
        for child in kids.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _links(pid: int) -> set[str]:
    """What each open file descriptor of ``pid`` points to (``pipe:[inode]`` for a pipe)."""
    links = set()
    try:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):  # closed while listed (the listing's own descriptor, say)
                links.add(os.readlink(fd))
    except OSError:  # gone, or not ours to read
        pass
    return links


def pipe_holders(pid: int) -> dict[int, str]:
    """Every other process holding one of the pipes ``pid`` holds: what keeps a resource tracker alive (it ends
    when the last writer of its pipe closes it), named in a failure so that a rare one can be traced."""
    mine = {link for link in _links(pid) if link.startswith("pipe:")}
    return {int(p.name): cmdline(int(p.name))[:90] for p in Path("/proc").iterdir()
            if p.name.isdigit() and int(p.name) != pid and _links(int(p.name)) & mine}
