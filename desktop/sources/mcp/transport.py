"""How a connection reaches its server: the transport for each kind of source, the
launch slots that pace starting server processes, and closing within a time limit.

The connection (:mod:`desktop.sources.mcp.connection`) chooses among these and wires
them to its own state (its fault, its stderr, its sign-in).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import weakref
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from typing import Any

from mcp import StdioServerParameters

from desktop.core.model import SourceSpec
from desktop.core.placeholders import UnresolvedPlaceholder
from desktop.core.resolved_spec import placeholder_values, resolve_spec
from desktop.core.secrets import spec_secrets
from desktop.sources.budgets import Budgets
from desktop.sources.errors import SourceError
from desktop.sources.launchers import stop_graces
from desktop.sources.mcp.errors import refused_answer
from desktop.sources.mcp.tls import tls_context


def _secret_lookup(entry: str) -> str | None:
    """A secret the program saved in the OS keyring (``${keyring:ENTRY}``)."""
    from desktop.sources.config.secrets import secret_lookup

    return secret_lookup(entry)


def resolved_spec(spec: SourceSpec, env: dict[str, str]) -> tuple[SourceSpec, list[str]]:
    """``spec`` with its placeholders resolved for one connection, and the secrets to
    mask in whatever that connection says (a server may repeat its arguments or URL in
    an error)."""
    if spec.untrusted:  # never started, no placeholder of its resolved
        raise SourceError(f"not started: {spec.untrusted}")
    from desktop.sources.config.inputs import InputValues

    inputs = InputValues(spec.label)
    try:
        # Placeholders (${VAR}, ${env:VAR}, ${keyring:...}, ${input:ID}) in the command,
        # URL, env and headers are resolved here, for this connection only; never stored
        # resolved.
        resolved = resolve_spec(spec, env, inputs=inputs, secret_lookup=_secret_lookup)
    except UnresolvedPlaceholder as exc:
        verb = "start the server" if spec.transport == "stdio" else "connect"
        raise SourceError(f"cannot {verb}: {exc}") from None
    secrets = [
        *spec_secrets(resolved),
        *spec_secrets(spec),
        *placeholder_values(spec, env, inputs=inputs, secret_lookup=_secret_lookup),
    ]
    return resolved, secrets


def stdio_parameters(spec: SourceSpec) -> StdioServerParameters:
    """How to start a stdio server (``spec`` resolved)."""
    if not spec.command:
        raise SourceError("no command to start the server")
    extra = dict(spec.env)
    return StdioServerParameters(
        command=spec.command[0], args=list(spec.command[1:]), env=extra or None
    )


def http_transport(
    spec: SourceSpec,
    configured: SourceSpec,
    env: dict[str, str],
    budgets: Budgets,
    *,
    on_auth_stop: Callable[[SourceError], None],
    on_request: Callable[[Any], Awaitable[None]],
    on_status: Callable[[Any], Awaitable[None]],
    on_fault: Callable[[str], None],
    budget: Any = None,
) -> tuple[HttpTransport, Any]:
    """Streamable HTTP to ``spec``'s endpoint (resolved; ``configured`` as the user wrote
    it), and the sign-in that authorizes its requests.

    ``on_request`` and ``on_status`` see every request and response; ``on_fault`` is
    called for a message over the budget; ``budget`` (a ``NotificationBudget``) judges
    what the server sends unasked.
    """
    headers = dict(spec.headers)
    import httpx2
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT

    from desktop.sources.mcp.http_limits import cap_responses, request_headers
    from desktop.sources.mcp.signin import connection_auth

    http = httpx2.AsyncClient(
        headers=request_headers(headers),
        # Sign-in (OAuth): the stored token, refreshed; a challenge ends the connection.
        auth=(auth := connection_auth(configured, spec.endpoint, env, on_auth_stop)),
        timeout=httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT),
        verify=tls_context(),
        event_hooks={
            "request": [on_request],
            "response": [
                on_status,
                cap_responses(
                    budgets.max_message_bytes,
                    on_fault,
                    budgets.answer_limit,
                    refused_answer,
                    budget,
                ),
            ],
        },
    )
    # The SDK's own limit on one event (1 MiB) refused any file over about 760 KB
    # from a server answering with event streams (its servers' default); ours,
    # above, applies to every message, and this one stays only as a backstop.
    transport = streamable_http_client(
        spec.endpoint,
        http_client=http,
        max_sse_event_size=2 * budgets.max_message_bytes,
    )
    return HttpTransport(http, transport), auth


class HttpTransport:
    """Streamable HTTP with our own httpx client (for headers), closed after the stream."""

    def __init__(self, http: Any, inner: Any) -> None:
        self._http = http
        self._inner = inner

    async def __aenter__(self) -> Any:
        await self._http.__aenter__()
        try:
            return await self._inner.__aenter__()
        except BaseException:
            await self._http.__aexit__(None, None, None)
            raise

    async def __aexit__(self, *exc: object) -> Any:
        try:
            return await self._inner.__aexit__(*exc)
        finally:
            await self._http.__aexit__(None, None, None)


# Starting a server process (an interpreter, its imports) takes a core for a while; twenty
# at once leave the window's loop thread one twenty-first of the machine. Launches wait
# for a slot, as many slots as cores, and a slot is given up once the server has answered
# its handshake or after LAUNCH_SLOT_SECONDS, so a hung server never holds others back.
LAUNCH_SLOT_SECONDS = 3.0
_launch_slots: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary()
)


@contextlib.asynccontextmanager
async def launch_slot() -> Any:
    loop = asyncio.get_running_loop()
    slots = _launch_slots.get(loop)
    if slots is None:
        slots = _launch_slots[loop] = asyncio.Semaphore(max(2, os.cpu_count() or 2))
    await slots.acquire()
    held = [True]

    def give_up() -> None:
        if held[0]:
            held[0] = False
            slots.release()

    timer = loop.call_later(LAUNCH_SLOT_SECONDS, give_up)
    try:
        yield
    finally:
        timer.cancel()
        give_up()


def timed_out(exc: BaseException) -> bool:
    task = asyncio.current_task()
    return task is not None and task.cancelling() == 0


def close_seconds(spec: SourceSpec) -> float:
    """How long closing may take: a package runner still installing gets its graces."""
    return 10.0 + sum(stop_graces(spec) or (0.0, 0.0))


async def close_quietly(stack: AsyncExitStack, seconds: float = 10.0) -> None:
    try:
        async with asyncio.timeout(seconds):
            await stack.aclose()
    except BaseException as exc:
        if isinstance(exc, asyncio.CancelledError) and not timed_out(exc):
            raise
