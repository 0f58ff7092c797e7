"""Run a stdio MCP server and write down every message the client sends it.

``python wire_record.py LOG COMMAND...`` starts ``COMMAND`` and passes stdin and stdout
through, byte for byte, appending each line the client writes to ``LOG`` as it arrives.
A test reads ``LOG`` to see exactly what a server received: the ``initialize`` request
with the client's capabilities, and every request after it.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import threading


def main() -> int:
    log_path, argv = sys.argv[1], sys.argv[2:]
    child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None

    def client_to_server() -> None:
        with open(log_path, "ab") as log:
            for line in sys.stdin.buffer:
                log.write(line if line.endswith(b"\n") else line + b"\n")
                log.flush()
                try:
                    child.stdin.write(line)  # type: ignore[union-attr]
                    child.stdin.flush()  # type: ignore[union-attr]
                except (BrokenPipeError, ValueError):
                    break
        with contextlib.suppress(BrokenPipeError, ValueError):
            child.stdin.close()  # type: ignore[union-attr]

    threading.Thread(target=client_to_server, daemon=True).start()
    out = sys.stdout.buffer
    for line in child.stdout:
        out.write(line)
        out.flush()
    return child.wait()


if __name__ == "__main__":
    sys.exit(main())
