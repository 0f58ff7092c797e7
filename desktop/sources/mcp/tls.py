"""The TLS context of every HTTPS connection to a server."""

from __future__ import annotations

import functools
import ssl


@functools.cache
def tls_context() -> ssl.SSLContext:
    """One context for every connection: building one loads the CA bundle, which costs
    tens of milliseconds per server otherwise."""
    return ssl.create_default_context()
