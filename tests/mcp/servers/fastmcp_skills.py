"""fastmcp's own Skills-extension server over a folder: an independent implementation.

``python fastmcp_skills.py DIR [--http PORT]`` (stdio by default; HTTP binds 127.0.0.1).
"""

from __future__ import annotations

import argparse
import contextlib
import warnings

from fastmcp import FastMCP


def build(folder: str) -> FastMCP:
    warnings.simplefilter("ignore")
    from fastmcp.server.providers.skills import SkillsDirectoryProvider
    from fastmcp.skills.extension import SkillsExtension

    mcp = FastMCP("fastmcp-skills")
    provider = SkillsDirectoryProvider(roots=folder, experimental_skills=True)
    mcp.add_provider(provider)
    with contextlib.suppress(ValueError):  # already registered by the provider itself
        mcp.add_extension(SkillsExtension(providers=[provider]))
    return mcp


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("--http", type=int)
    args = parser.parse_args()
    mcp = build(args.folder)
    if args.http:
        mcp.run(
            transport="http",
            host="127.0.0.1",
            port=args.http,
            show_banner=False,
            log_level="warning",
        )
    else:
        mcp.run(show_banner=False)


if __name__ == "__main__":
    main()
