"""Skill Catalog: browse Agent Skills from local folders and MCP servers."""

__version__ = "0.1.0"
