"""What a server wrote on its stderr, said so that its cause shows.

A crashing server's last lines are rarely its cause: Node.js ends with the error
object's closing braces and its own version (``} | ] | } | Node.js v20…``), Python with
the last frame's source line before the exception, npm with a log file's path. The
first lines that read like an error (``Error:``, ``Traceback``, ``ENOENT``, an
exception's name) are what a person needs, with the tail beside them.

Pure: text in, text out (the caller masks secrets before anything is shown).
"""

from __future__ import annotations

import re

# Lines that read like the cause of a failure, in the words servers' runtimes use.
ERROR_LINE_RE = re.compile(
    r"Traceback \(most recent call last\)"
    r"|\b[A-Za-z_][A-Za-z0-9_.]*(?:Error|Exception|Failure)\b:"
    r"|\b(?:Error|ERROR|error|Exception|FATAL|Fatal|fatal|panic|PANIC)\b\s*[:\]!]"
    r"|\bE(?:NOENT|ACCES|PERM|ADDRINUSE|CONNREFUSED|NOTFOUND|TIMEDOUT|MFILE|ISDIR|NOTDIR"
    r"|EXIST|PIPE|CONNRESET)\b"
    r"|command not found|No such file or directory|Permission denied|Cannot find module"
    r"|Segmentation fault|Killed|Aborted",
)

CAUSE_LINES = 3  # error-like lines quoted in a message
CAUSE_CHARS = 200  # of each
LOG_LINES = 400  # lines of a server's output shown by `sources log` and the window
LOG_LINE_CHARS = 2000


def is_error_line(line: str) -> bool:
    """Whether ``line`` reads like the cause of a failure."""
    return ERROR_LINE_RE.search(line) is not None


def cause_lines(lines: list[str], limit: int = CAUSE_LINES) -> list[str]:
    """The first ``limit`` error-like lines of ``lines``, stripped, each cut short."""
    found: list[str] = []
    for line in lines:
        if is_error_line(line):
            text = " ".join(line.split())
            if len(text) > CAUSE_CHARS:
                text = text[: CAUSE_CHARS - 1] + "…"
            if text not in found:
                found.append(text)
            if len(found) >= limit:
                break
    return found


def stderr_summary(causes: list[str], tail: list[str], limit: int = 600) -> str:
    """One line for a message: the first error-like lines, then the last lines (those
    not quoted already), at most ``limit`` characters; the tail alone when no line
    reads like an error. The tail is cut from its start, at a word, saying so."""
    last = [" ".join(ln.split()) for ln in tail if ln.strip()]
    if not causes:
        return _cut_start(" | ".join(last), limit)
    head = " | ".join(causes)
    rest = [ln for ln in last if ln not in causes]
    if not rest:
        return head[:limit]
    room = limit - len(head) - len(" … last lines: ")
    if room < 40:
        return head[:limit]
    return f"{head} … last lines: {_cut_start(' | '.join(rest), room)}"


def _cut_start(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    kept = text[-(limit - 1) :]
    space = kept.find(" ")
    return "…" + (kept[space + 1 :] if 0 <= space < 40 else kept)


def bounded_log(head: str, tail: str, skipped: int, lines: int = LOG_LINES) -> str:
    """A server's stderr for a person to read: its beginning and its end (``skipped``
    bytes between them were not kept), at most ``lines`` lines each cut to
    :data:`LOG_LINE_CHARS`, saying what was left out."""
    if skipped <= 0:  # nothing left out between them: one text (a line may span both)
        first, last = _lines(head + tail), []
        first, last = first[: len(first) // 2], first[len(first) // 2 :]
    else:
        first, last = _lines(head), _lines(tail)
    out: list[str] = []
    if skipped > 0 or len(first) + len(last) > lines:
        keep_first = min(len(first), lines // 2)
        keep_last = min(len(last), lines - keep_first)
        dropped = len(first) - keep_first + len(last) - keep_last
        out += first[:keep_first]
        gap = []
        if skipped > 0:
            gap.append(f"{skipped:,} bytes")
        if dropped > 0:
            gap.append(f"{dropped:,} lines")
        out.append(f"[… {' and '.join(gap)} not shown …]")
        out += last[len(last) - keep_last :]
    else:
        out = first + last
    return "\n".join(out)


def _lines(text: str) -> list[str]:
    out = []
    for line in text.splitlines():
        if len(line) > LOG_LINE_CHARS:
            line = line[:LOG_LINE_CHARS] + f" [… {len(line) - LOG_LINE_CHARS:,} more characters]"
        out.append(line)
    return out
