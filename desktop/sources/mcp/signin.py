"""Sign-in (the MCP authorization flow, OAuth 2.1) for Streamable HTTP sources.

The protocol is the ``mcp`` SDK's (:class:`mcp.client.auth.OAuthClientProvider`):
discovery from the server's 401 challenge and its protected resource metadata,
authorization server metadata, dynamic client registration, authorization code with
PKCE (S256), the ``resource`` parameter, refresh. What is ours:

- :class:`KeyringTokenStorage`: the tokens and the client registration of one source,
  kept in the OS keyring (through :mod:`desktop.store.os_keyring` and its policy) under
  the source's label and server key, as approvals are; never in a file; with no usable
  keyring, for this process only. An entry an older version wrote (under the label and
  the URL alone) is moved under the new name when it is first read.
- :class:`Loopback`: the redirect target, ``http://127.0.0.1:PORT/callback`` on a free
  port, listening only while a sign-in waits; a callback whose ``state`` is not the one
  sent is refused.
- The checks made before a browser is opened (PKCE, HTTPS, the redirect address), and
  messages for people in place of the SDK's exceptions (which may quote a token
  answer, so they are never shown or logged).
- :func:`connection_auth`: the hook of every HTTP connection. It sends the stored
  token, refreshes it when it expires, and when the server asks for a sign-in that
  cannot happen without a person, ends the connection with :class:`SignInRequired`.
- :func:`refreshing`: one refresh at a time per sign-in, between this process's
  connections and between processes (a lock file beside the keyring entry). A
  refresh token is single-use where the server rotates them: two refreshes sent with
  the same one would leave one of them, or (where reuse revokes the family) both,
  signed out. Under the lock the stored tokens are read again first: when another
  connection or process already renewed them, its tokens are used and kept.

Kept as one module: one sign-in flow: the SDK's provider, its token storage in the
keyring, the browser round trip and refresh under a lock share one source's state.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import ipaddress
import json
import logging
import os
import threading
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
from mcp.client.auth import OAuthClientProvider, OAuthFlowError
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    OAuthToken,
    ProtectedResourceMetadata,
)
from pydantic import AnyUrl, ValidationError

from desktop.core.model import SourceSpec
from desktop.sources.errors import SourceError
from desktop.sources.mcp.tls import tls_context

SERVICE = "skill-catalog"  # desktop.store.os_keyring.SECRETS_SERVICE
CLIENT_NAME = "Skill Catalog"
# How long a sign-in waits for the browser (a person reading a consent page).
SIGN_IN_SECONDS = 300.0
# How long one keyring call may take (an unlock prompt may be waiting).
KEYRING_SECONDS = 20.0
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")

# A token is renewed this long before it runs out (at most a tenth of its lifetime), so
# one that is still good by this machine's clock is not refused on arrival: a refused
# token is answered with a whole new sign-in, not a renewal.
RENEW_EARLY_SECONDS = 60.0

# How long a refresh waits for another one of the same sign-in (in this process or
# another) before giving up; a refresh is one request, bounded by the HTTP timeout.
REFRESH_WAIT_SECONDS = 60.0

# Entries kept for this process when no keyring could keep them.
_SESSION: dict[str, str] = {}


class SignInRequired(SourceError):
    """The server asks for a sign-in, and nobody is there to sign in (a listing)."""

    def __init__(self, label: str, *, again: bool) -> None:
        self.label = label
        self.again = again
        self.sign_in = "again" if again else "required"
        command = f"skill-catalog login {label}"
        if again:
            text = (
                f"Sign in again: the sign-in has expired and could not be renewed (run {command})"
            )
        else:
            text = f"Sign in required: the server asks you to sign in (run {command})"
        super().__init__(text)


class SignInError(Exception):
    """A sign-in that did not happen, with why (for people); nothing was stored."""


@dataclass(frozen=True, slots=True)
class SignedIn:
    label: str
    remembered: bool  # kept in the OS keyring (False: for this process only)
    why_not: str = ""  # why it is not remembered
    account: str = ""  # whose account, where the server says


# -- identity and storage ------------------------------------------------------------------


def entry_name(spec: SourceSpec, environ: Mapping[str, str] | None = None) -> str:
    """The keyring entry of ``spec``'s sign-in: its label and its server key
    (:func:`~desktop.core.identity.server_key`), as approvals and the cache bind them.

    The URL is taken with its environment placeholders filled in (the server it stands
    for); a label that now names another server finds no sign-in.
    """
    server = str(spec.origin.server(environ))
    digest = hashlib.sha256(json.dumps([spec.label, server]).encode("utf-8")).hexdigest()
    return f"signin/{spec.label}/{digest[:32]}"


def legacy_entry_name(spec: SourceSpec, environ: Mapping[str, str] | None = None) -> str:
    """The entry versions before the server key (up to 3f4c5c9) kept the sign-in in:
    the label and the URL with placeholders filled in, not normalized, no transport."""
    endpoint = spec.origin.legacy_endpoint(environ)
    digest = hashlib.sha256(json.dumps([spec.label, endpoint]).encode("utf-8")).hexdigest()
    return f"signin/{spec.label}/{digest[:32]}"


def _why_no_keyring() -> str:
    from desktop.store.os_keyring import why_unavailable

    return why_unavailable()


def _keyring_get(entry: str) -> str | None:
    from desktop.store.os_keyring import get_secret

    try:
        value = get_secret(entry, SERVICE)
    except Exception:  # noqa: BLE001 - no keyring, or a locked or broken one: nothing usable
        return _SESSION.get(entry)
    return value if value is not None else _SESSION.get(entry)


def _keyring_set(entry: str, value: str) -> str:
    """Store ``value``; returns "" when the keyring kept it, else why not (then it is
    kept for this process only)."""
    from desktop.store.os_keyring import set_secret

    why = _why_no_keyring()
    if why:
        _SESSION[entry] = value
        return why
    try:
        set_secret(entry, value, SERVICE)
    except Exception as exc:  # noqa: BLE001 - a refused write: kept for the session
        _SESSION[entry] = value
        return f"the keyring refused it ({type(exc).__name__})"
    _SESSION.pop(entry, None)
    return ""


def _keyring_delete(entry: str) -> bool:
    """Remove the entry; whether there was one."""
    from desktop.store.os_keyring import delete_secret

    had = _SESSION.pop(entry, None) is not None
    with contextlib.suppress(Exception):  # a locked or failing keyring: nothing removed
        had = delete_secret(entry, SERVICE) or had
    return had


def _move_from(legacy: str, entry: str) -> str | None:
    """The sign-in an older version kept under ``legacy``, moved to ``entry`` (written
    under the new name first, then removed from the old: an interruption leaves a copy,
    never nothing); ``None`` when there is none."""
    value = _keyring_get(legacy)
    if value is not None and _keyring_set(entry, value) == "":
        _keyring_delete(legacy)
    return value


def _moved_entry(spec: SourceSpec, environ: Mapping[str, str] | None = None) -> str:
    """:func:`entry_name`, after moving there the sign-in an older version kept under
    :func:`legacy_entry_name` when nothing is at the new name yet."""
    entry = entry_name(spec, environ)
    legacy = legacy_entry_name(spec, environ)
    if legacy != entry and _keyring_get(entry) is None:
        _move_from(legacy, entry)
    return entry


async def _bounded(fn: Callable[..., Any], *args: Any) -> Any:
    """A keyring call on a worker thread, within :data:`KEYRING_SECONDS`."""
    try:
        return await asyncio.wait_for(asyncio.to_thread(fn, *args), KEYRING_SECONDS)
    except TimeoutError:
        raise SignInError(
            f"the OS keyring did not answer within {KEYRING_SECONDS:g} s "
            "(an unlock prompt may be waiting)"
        ) from None


def signed_in(spec: SourceSpec, environ: Mapping[str, str] | None = None) -> bool:
    """Whether a sign-in is stored for ``spec`` (in the keyring or for this process)."""
    return _keyring_get(_moved_entry(spec, environ)) is not None


def sign_out(spec: SourceSpec, environ: Mapping[str, str] | None = None) -> bool:
    """Remove ``spec``'s tokens and client registration (under an older version's
    entry name too); whether there were any."""
    gone = _keyring_delete(entry_name(spec, environ))
    return _keyring_delete(legacy_entry_name(spec, environ)) or gone


class KeyringTokenStorage:
    """The SDK's ``TokenStorage`` for one source: one keyring entry holding its tokens,
    their expiry and its client registration, as JSON.

    ``fresh`` (a sign-in): what is stored is not used, and nothing is written until
    the authorization server has issued tokens, so a sign-in that fails stores nothing
    and leaves an earlier one as it was.
    """

    def __init__(self, entry: str, *, fresh: bool = False, legacy: str = "") -> None:
        self.entry = entry
        # Where an older version kept this sign-in: read (and moved) when nothing is at
        # ``entry``, removed once a new sign-in is stored.
        self.legacy = legacy if legacy != entry else ""
        self.fresh = fresh
        self._loaded = fresh
        self._tokens: dict[str, Any] | None = None
        self._client: dict[str, Any] | None = None
        self.expires_at: float | None = None
        self.had_tokens = False
        self.why_not_remembered = ""
        self.stored = False
        # Where the tokens come from (kept with them: a refresh in a later run needs the
        # token endpoint, which the SDK knows only after discovery).
        self.metadata: dict[str, Any] | None = None
        self.resource_metadata: dict[str, Any] | None = None
        self.provider: OAuthClientProvider | None = None
        self.account = ""  # whose account, where the server says (see _account)

    async def reload(self) -> None:
        """Read what is stored again (another connection or process may have renewed it)."""
        self._loaded = False
        self._tokens = None
        self.expires_at = None
        await self._load()

    async def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        raw = await _bounded(_keyring_get, self.entry)
        if not raw and self.legacy:
            raw = await _bounded(_move_from, self.legacy, self.entry)
        if not raw:
            return
        try:
            record = json.loads(raw)
        except ValueError:
            return
        if not isinstance(record, dict):
            return
        tokens, client = record.get("tokens"), record.get("client")
        self._tokens = tokens if isinstance(tokens, dict) else None
        self._client = client if isinstance(client, dict) else None
        expires = record.get("expires_at")
        self.expires_at = float(expires) if isinstance(expires, int | float) else None
        self.had_tokens = self._tokens is not None
        for name in ("metadata", "resource_metadata"):
            value = record.get(name)
            setattr(self, name, value if isinstance(value, dict) else None)
        account = record.get("account")
        self.account = account if isinstance(account, str) else ""

    async def get_tokens(self) -> OAuthToken | None:
        await self._load()
        if self._tokens is None:
            return None
        try:
            return OAuthToken.model_validate(self._tokens)
        except ValidationError:
            return None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        await self._load()
        self._tokens = tokens.model_dump(mode="json", exclude_none=True)
        self.expires_at = (
            time.time() + float(tokens.expires_in) if tokens.expires_in is not None else None
        )
        await self._write()

    @property
    def renew_at(self) -> float | None:
        """When the stored token is to be renewed (see RENEW_EARLY_SECONDS)."""
        if self.expires_at is None:
            return None
        lifetime = (self._tokens or {}).get("expires_in")
        early = RENEW_EARLY_SECONDS
        if isinstance(lifetime, int | float) and lifetime > 0:
            early = min(early, float(lifetime) / 10)
        return self.expires_at - early

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        await self._load()
        if self._client is None:
            return None
        try:
            return OAuthClientInformationFull.model_validate(self._client)
        except ValidationError:
            return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        await self._load()
        self._client = client_info.model_dump(mode="json", exclude_none=True)
        if self._tokens is not None:
            await self._write()

    async def _write(self) -> None:
        context = self.provider.context if self.provider is not None else None
        if context is not None and context.oauth_metadata is not None:
            self.metadata = context.oauth_metadata.model_dump(mode="json", exclude_none=True)
        if context is not None and context.protected_resource_metadata is not None:
            prm = context.protected_resource_metadata
            self.resource_metadata = prm.model_dump(mode="json", exclude_none=True)
        record = {
            "tokens": self._tokens,
            "client": self._client,
            "expires_at": self.expires_at,
            "metadata": self.metadata,
            "resource_metadata": self.resource_metadata,
            "account": self.account,
        }
        self.why_not_remembered = await _bounded(_keyring_set, self.entry, json.dumps(record))
        if self.fresh and self.legacy and not self.why_not_remembered:
            await _bounded(_keyring_delete, self.legacy)  # replaced by this sign-in
        self.stored = True


# -- the loopback redirect ------------------------------------------------------------------


CALLBACK_PATH = "/callback"
_PAGE = (
    "<!doctype html><meta charset=utf-8><title>Skill Catalog</title>"
    "<body style='font-family:sans-serif;margin:3em'><h1>{title}</h1><p>{text}</p></body>"
)


class Loopback:
    """``http://127.0.0.1:PORT/callback`` on a free port, while a sign-in waits.

    The first callback carrying the expected ``state`` ends the wait, with its code or
    its ``error``; any other request is answered and refused, and the wait goes on.
    """

    def __init__(self) -> None:
        self._server: asyncio.Server | None = None
        self._result: asyncio.Future[AuthorizationCodeResult] | None = None
        self.port = 0
        self.expected_state: str | None = None
        self.refused = 0

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"

    async def __aenter__(self) -> Loopback:
        self._result = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._answer, "127.0.0.1", 0)
        self.port = int(self._server.sockets[0].getsockname()[1])
        return self

    async def __aexit__(self, *exc: object) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.close()
            with contextlib.suppress(Exception):
                async with asyncio.timeout(5):
                    await server.wait_closed()
        if self._result is not None and not self._result.done():
            self._result.cancel()

    async def wait(self) -> AuthorizationCodeResult:
        assert self._result is not None
        return await asyncio.shield(self._result)

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(10):
                head = await reader.readuntil(b"\r\n\r\n")
            status, title, text = self._judge(head)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
            status, title, text = 400, "Not understood", "This request was not understood."
        except Exception:  # noqa: BLE001 - a request must not end the sign-in
            status, title, text = 400, "Not understood", "This request was not understood."
        body = _PAGE.format(title=title, text=text).encode("utf-8")
        reason = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed"}
        writer.write(
            f"HTTP/1.1 {status} {reason.get(status, 'Error')}\r\n"
            "Content-Type: text/html; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n"
            "Cache-Control: no-store\r\nReferrer-Policy: no-referrer\r\n\r\n".encode("ascii")
            + body
        )
        with contextlib.suppress(Exception):
            await writer.drain()
            writer.close()

    def _judge(self, head: bytes) -> tuple[int, str, str]:
        line = head.split(b"\r\n", 1)[0].decode("latin-1")
        parts = line.split(" ")
        if len(parts) != 3:
            return 400, "Not understood", "This request was not understood."
        method, target, _ = parts
        url = urlsplit(target)
        if url.path != CALLBACK_PATH:
            return 404, "Not found", "Nothing is served here."
        if method != "GET":
            return 405, "Not allowed", "Only the sign-in answer is taken here."
        query = {k: v[0] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        state = query.get("state")
        if self.expected_state is None or state != self.expected_state:
            self.refused += 1
            return (
                400,
                "Sign-in refused",
                "This answer does not belong to the sign-in Skill Catalog is waiting for "
                "(its state does not match), so it was refused.",
            )
        assert self._result is not None
        if self._result.done():
            return 400, "Already answered", "This sign-in was already answered."
        if "error" in query:
            why = query["error"][:100]
            detail = query.get("error_description", "")[:200]
            self._result.set_exception(
                SignInError(
                    f"the authorization server did not sign you in: {why}"
                    + (f" ({detail})" if detail else "")
                )
            )
            return 200, "Not signed in", "The sign-in did not happen. You can close this tab."
        code = query.get("code")
        if not code:
            self._result.set_exception(SignInError("the sign-in answer carries no code"))
            return 400, "Not signed in", "The answer carries no code."
        self._result.set_result(
            AuthorizationCodeResult(code=code, state=state, iss=query.get("iss"))
        )
        return 200, "Signed in", "You can close this tab and go back to Skill Catalog."


# -- the provider ------------------------------------------------------------------------


def _loopback(host: str | None) -> bool:
    if not host:
        return False
    if host in LOOPBACK_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _check_secure(url: str, what: str) -> None:
    parts = urlsplit(url)
    if parts.scheme == "https":
        return
    if parts.scheme == "http" and _loopback(parts.hostname):
        return
    raise SignInError(
        f"the {what} {parts.scheme}://{parts.netloc} is not HTTPS; a sign-in over plain "
        "HTTP is refused (it is allowed only on this computer: 127.0.0.1, localhost, ::1)"
    )


def _state_of(url: str) -> str | None:
    values = parse_qs(urlsplit(url).query).get("state")
    return values[0] if values else None


# One lock per sign-in for this process's connections (whatever thread or event loop
# they run on), taken without blocking an event loop.
_REFRESH_LOCKS: dict[str, threading.Lock] = {}
_REFRESH_LOCKS_GUARD = threading.Lock()


def _refresh_lock_file(entry: str) -> Any:
    """A lock file of ``entry``'s refreshes in the user's state folder (a new handle each
    time: two handles of one file exclude each other, in one process too), or ``None``
    where none can be made (a read-only home: this process's lock alone holds)."""
    import filelock
    import platformdirs

    try:
        folder = platformdirs.user_state_path("skill-catalog")
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    except (OSError, ValueError):
        return None
    digest = hashlib.sha256(f"{SERVICE}\n{entry}".encode()).hexdigest()[:32]
    path = folder / f"signin-{digest}.lock"
    return filelock.FileLock(str(path), mode=0o600, thread_local=False)


def _try_file(lock: Any) -> bool | None:
    """Take ``lock`` if free: ``True``; ``False`` when another holds it; ``None`` when the
    lock file cannot be opened."""
    import filelock

    try:
        lock.acquire(timeout=0)
    except filelock.Timeout:
        return False
    except OSError:
        return None
    return True


@contextlib.asynccontextmanager
async def refreshing(entry: str, seconds: float = REFRESH_WAIT_SECONDS) -> AsyncIterator[None]:
    """Hold the refreshes of the sign-in ``entry``: in this process (every thread and
    event loop) and in every other process of this user (a lock file). Waits without
    blocking the event loop; gives up after ``seconds`` with :class:`SignInError`."""
    with _REFRESH_LOCKS_GUARD:
        local = _REFRESH_LOCKS.setdefault(entry, threading.Lock())
    shared = _refresh_lock_file(entry)
    end = time.monotonic() + seconds
    pause = 0.005
    while True:
        if local.acquire(blocking=False):
            taken = True if shared is None else _try_file(shared)
            if taken is None:
                shared = None  # no lock file: this process's lock alone
                taken = True
            if taken:
                break
            local.release()
        if time.monotonic() > end:
            raise SignInError(
                f"another connection has been renewing this sign-in for {seconds:g} s"
            )
        await asyncio.sleep(pause)
        pause = min(pause * 2, 0.1)
    try:
        yield
    finally:
        if shared is not None:
            shared.release()
        local.release()


class _Provider(OAuthClientProvider):
    """The SDK's provider, with the stored expiry restored and each failure handed to
    ``on_stop`` (the SDK's transport only logs what escapes an auth flow)."""

    def __init__(
        self,
        *args: Any,
        tokens: KeyringTokenStorage,
        on_stop: Callable[[Exception], None] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self._store = tokens
        tokens.provider = self
        self._on_stop = on_stop
        self.challenged = False
        self.published = False

    @property
    def account(self) -> str:
        """Whose account the stored sign-in is for, where the server said ("" if not)."""
        return self._store.account

    async def _initialize(self) -> None:
        await super()._initialize()
        # The SDK computes the expiry only when tokens arrive: one stored by an earlier
        # run would count as valid forever, and be sent expired instead of refreshed.
        if self.context.current_tokens is not None:
            self.context.token_expiry_time = self._store.renew_at
        # And the metadata found at sign-in: the token endpoint a refresh goes to.
        with contextlib.suppress(ValidationError):
            if self.context.oauth_metadata is None and self._store.metadata is not None:
                self.context.oauth_metadata = OAuthMetadata.model_validate(self._store.metadata)
            if (
                self.context.protected_resource_metadata is None
                and self._store.resource_metadata is not None
            ):
                prm = ProtectedResourceMetadata.model_validate(self._store.resource_metadata)
                self.context.protected_resource_metadata = prm
                if prm.authorization_servers:
                    self.context.auth_server_url = str(prm.authorization_servers[0])

    async def _handle_token_response(self, response: httpx2.Response) -> None:
        self._store.account = _account(await response.aread()) or self._store.account
        await super()._handle_token_response(response)
        self.context.token_expiry_time = self._store.renew_at

    async def _handle_refresh_response(self, response: httpx2.Response) -> bool:
        if response.status_code == 200:
            self._store.account = _account(await response.aread()) or self._store.account
        renewed = await super()._handle_refresh_response(response)
        if renewed:
            self.context.token_expiry_time = self._store.renew_at
        return renewed

    async def _auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        # A token due for renewal is renewed here, one refresh at a time per sign-in;
        # the SDK's flow then finds it valid (or, when the refresh was refused, none).
        for flow in (self._renew(), super()._auth_flow(request)):
            try:
                outgoing = await flow.__anext__()
                while True:
                    response = yield outgoing
                    outgoing = await flow.asend(response)
            except StopAsyncIteration:
                pass
            finally:
                await flow.aclose()

    async def _renew(self) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        """Renew the token when it is due, under :func:`refreshing`: first read what is
        stored again, and when another connection or process renewed it meanwhile, use
        its tokens instead of spending a refresh token that may be used up."""
        async with self.context.lock:
            if not self._initialized:
                await self._initialize()
            if self._store.fresh or not self._due():
                return
            held = self.context.current_tokens
            async with refreshing(self._store.entry):
                await self._store.reload()
                stored = await self._store.get_tokens()
                if stored is None:
                    # Signed out meanwhile: nothing to renew; the server asks again.
                    self.context.clear_tokens()
                    return
                if held is None or (stored.access_token, stored.refresh_token) != (
                    held.access_token,
                    held.refresh_token,
                ):
                    self.context.current_tokens = stored
                    self.context.token_expiry_time = self._store.renew_at
                if not self._due():
                    return  # renewed by another: its tokens are ours
                renewal = await self._refresh_token()
                response = yield renewal
                await self._handle_refresh_response(response)

    def _due(self) -> bool:
        """Whether the token is to be renewed now, and can be."""
        return not self.context.is_token_valid() and self.context.can_refresh_token()

    def _select_authorization_server(self, advertised: list[str]) -> str:
        chosen = super()._select_authorization_server(advertised)
        _check_secure(chosen, "authorization server")
        return chosen

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        flow = super().async_auth_flow(request)
        try:
            outgoing = await flow.__anext__()
            while True:
                response = yield outgoing
                if response.status_code == 401 and outgoing is request:
                    self.challenged = True
                elif response.status_code == 200 and "/.well-known/" in outgoing.url.path:
                    self.published = True  # the server says how to sign in
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        except Exception as exc:
            if self._on_stop is not None:
                self._on_stop(exc)
            raise
        finally:
            await flow.aclose()


def _account(answer: bytes) -> str:
    """Whose account a token answer is for, where it says: the claims of an OpenID
    Connect ID token (``email``, ``preferred_username`` or ``name``). Shown as the
    server says it, for people; nothing is decided by it."""
    try:
        data = json.loads(answer)
        token = data.get("id_token") if isinstance(data, dict) else None
        if not isinstance(token, str) or len(token) > 16384 or token.count(".") != 2:
            return ""
        payload = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (ValueError, TypeError):
        return ""
    if not isinstance(claims, dict):
        return ""
    for name in ("email", "preferred_username", "name"):
        value = claims.get(name)
        if isinstance(value, str) and 0 < len(value) <= 200:
            return value
    return ""


def _client_metadata(redirect_uri: str) -> OAuthClientMetadata:
    return OAuthClientMetadata(
        client_name=CLIENT_NAME,
        redirect_uris=[AnyUrl(redirect_uri)],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
    )


def explain(exc: BaseException) -> str:
    """A sign-in failure for people. The SDK's messages are not shown whole: some quote
    the authorization server's token answer."""
    if isinstance(exc, SignInError):
        return str(exc)
    text = str(exc)
    if isinstance(exc, OAuthFlowError):
        if text.startswith("Protected resource ") and "does not match" in text:
            return (
                "the server's resource metadata names another server than this source's "
                "URL, so its sign-in was refused"
            )
        if text.startswith("Authorization server metadata issuer mismatch"):
            return (
                "the authorization server's metadata names another issuer than the one the "
                "server's resource metadata allows, so it was refused"
            )
        if text.startswith("Invalid token response"):
            return "the authorization server's token answer has no usable access token"
        if text.startswith("Token exchange failed"):
            status = text.partition("(")[2].partition(")")[0]
            return f"the authorization server refused to issue a token (HTTP {status})"
        if text.startswith("State parameter mismatch"):
            return "the sign-in answer's state does not match the one sent; it was refused"
        if text.startswith("Authorization response iss mismatch"):
            return "the sign-in answer names another issuer; it was refused"
        if "registration" in text.lower() or "register" in text.lower():
            return "the authorization server did not register Skill Catalog as a client"
        if "metadata" in text.lower():
            return "the server's sign-in metadata could not be read"
        return "the sign-in failed (the authorization server's answers do not follow OAuth)"
    if isinstance(exc, httpx2.TransportError):
        return f"cannot reach the authorization server ({type(exc).__name__})"
    if isinstance(exc, ValidationError):
        return "the authorization server sent metadata that cannot be read"
    return f"the sign-in failed ({type(exc).__name__})"


def _check_before_browser(provider: _Provider, url: str, loopback: Loopback) -> None:
    """What must hold before a browser is sent to ``url`` (nothing is stored yet)."""
    _check_secure(url, "authorization address")
    metadata = provider.context.oauth_metadata
    if metadata is None:
        raise SignInError(
            "the server publishes no authorization server metadata, so its sign-in "
            "cannot be checked; it was refused"
        )
    if "S256" not in (metadata.code_challenge_methods_supported or []):
        raise SignInError(
            "the authorization server does not say it supports PKCE (S256), which a "
            "sign-in requires; it was refused"
        )
    _check_secure(str(metadata.token_endpoint), "token endpoint")
    sent = parse_qs(urlsplit(url).query).get("redirect_uri", [""])[0]
    client = provider.context.client_info
    registered = [str(u) for u in (client.redirect_uris or [])] if client is not None else []
    for where in [sent, *registered]:
        if where != loopback.redirect_uri:
            raise SignInError(
                f"the sign-in would return to {where or 'no address'}, not to this "
                "computer's loopback address; it was refused"
            )


# -- signing in ----------------------------------------------------------------------------

_PROBE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "skill-catalog", "version": "sign-in"},
    },
}


def _http_client(headers: dict[str, str], auth: httpx2.Auth) -> httpx2.AsyncClient:
    from desktop.sources.budgets import DEFAULT_BUDGETS
    from desktop.sources.mcp.http_limits import cap_responses

    # What the servers answer during a sign-in is held to the limit of one message too.
    capped = cap_responses(DEFAULT_BUDGETS.max_message_bytes, lambda _why: None)
    return httpx2.AsyncClient(
        headers=headers,
        auth=auth,
        timeout=httpx2.Timeout(30.0),
        verify=tls_context(),
        event_hooks={"response": [capped]},
    )


async def sign_in(
    spec: SourceSpec,
    open_browser: Callable[[str], Awaitable[None] | None],
    *,
    environ: Mapping[str, str] | None = None,
    seconds: float = SIGN_IN_SECONDS,
) -> SignedIn:
    """Sign in to ``spec``'s server: ``open_browser`` is handed the authorization
    address (after the checks) and the sign-in waits for the browser's answer on the
    loopback address, at most ``seconds``. Raises :class:`SignInError` with why; on
    success the tokens are stored (see :class:`SignedIn` for where)."""
    from desktop.core.placeholders import UnresolvedPlaceholder
    from desktop.core.resolved_spec import resolve_spec
    from desktop.sources.config.inputs import InputValues
    from desktop.sources.config.secrets import secret_lookup

    if spec.transport != "http":
        raise SignInError(f"{spec.label} is not a Streamable HTTP server; only those sign in")
    if spec.untrusted:  # a project's server not trusted: never contacted, nothing resolved
        raise SignInError(f"not contacted: {spec.untrusted}")
    env = dict(os.environ) if environ is None else dict(environ)
    try:
        resolved = resolve_spec(
            spec, env, inputs=InputValues(spec.label), secret_lookup=secret_lookup
        )
    except UnresolvedPlaceholder as exc:
        raise SignInError(f"cannot connect: {exc}") from None
    storage = KeyringTokenStorage(
        entry_name(spec, env), fresh=True, legacy=legacy_entry_name(spec, env)
    )
    async with Loopback() as loopback:
        provider: _Provider

        async def redirect(url: str) -> None:
            _check_before_browser(provider, url, loopback)
            loopback.expected_state = _state_of(url)
            opened = open_browser(url)
            if opened is not None:
                await opened

        provider = _Provider(
            resolved.endpoint,
            _client_metadata(loopback.redirect_uri),
            storage,
            redirect_handler=redirect,
            callback_handler=loopback.wait,
            tokens=storage,
        )
        headers = {
            "accept": "application/json, text/event-stream",
            "content-type": "application/json",
            **dict(resolved.headers),
        }
        try:
            async with asyncio.timeout(seconds), _http_client(headers, provider) as http:
                response = await http.post(resolved.endpoint, json=_PROBE)
                await response.aclose()
        except TimeoutError:
            raise SignInError(f"no sign-in within {seconds:g} s; nothing was stored") from None
        except Exception as exc:  # noqa: BLE001 - every failure is a message
            raise SignInError(f"{explain(exc)}; nothing was stored") from None
    if not storage.stored:
        if not provider.challenged:
            raise SignInError(
                f"the server did not ask for a sign-in (it answered HTTP "
                f"{response.status_code}); nothing was stored"
            )
        raise SignInError(
            f"the server still refuses the connection (HTTP {response.status_code}); "
            "nothing was stored"
        )
    return SignedIn(
        spec.label, not storage.why_not_remembered, storage.why_not_remembered, storage.account
    )


# -- every connection -----------------------------------------------------------------------


def connection_auth(
    spec: SourceSpec,
    endpoint: str,
    environ: Mapping[str, str],
    on_stop: Callable[[SourceError], None],
) -> httpx2.Auth:
    """The auth of one HTTP connection to ``spec``'s server (at ``endpoint``, resolved).

    With a stored sign-in its token is sent, and refreshed when it expires. Without
    one nothing changes (the source's own headers are sent) unless the server
    challenges: then ``on_stop`` is told why the connection cannot go on — a
    :class:`SignInRequired` when the server publishes how to sign in, else that it wants
    credentials the headers do not give.
    """
    storage = KeyringTokenStorage(
        entry_name(spec, environ), legacy=legacy_entry_name(spec, environ)
    )
    provider: _Provider

    async def no_browser(url: str) -> None:
        raise SignInRequired(spec.label, again=storage.had_tokens)

    async def no_callback() -> AuthorizationCodeResult:
        raise SignInRequired(spec.label, again=storage.had_tokens)

    def stopped(exc: Exception) -> None:
        if isinstance(exc, SignInRequired):
            on_stop(exc)
            return
        if isinstance(exc, SignInError):  # a keyring or a refresh that did not answer
            on_stop(SourceError(f"could not connect: {exc}"))
            return
        if not provider.published:
            on_stop(
                SourceError(
                    "could not connect: the server wants credentials (HTTP 401) and says "
                    "nothing of a sign-in; check the source's headers"
                )
            )
            return
        on_stop(SourceError(f"could not connect: sign-in refused: {explain(exc)}"))

    # The redirect address is never used: a connection does not sign in.
    provider = _Provider(
        endpoint,
        _client_metadata("http://127.0.0.1/callback"),
        storage,
        redirect_handler=no_browser,
        callback_handler=no_callback,
        tokens=storage,
        on_stop=stopped,
    )
    return provider


class _QuietAuthLogs(logging.Filter):
    """The SDK logs a traceback for each failed auth flow; its message may quote the
    authorization server's token answer. The connection or the sign-in says why."""

    def filter(self, record: logging.LogRecord) -> bool:
        msg = record.msg if isinstance(record.msg, str) else ""
        if msg.startswith(("OAuth flow error", "Token refresh failed", "Invalid refresh")):
            return False
        if msg.startswith(("Error in post_writer", "Session termination failed")):
            seen: BaseException | None = record.exc_info[1] if record.exc_info else None
            text = record.getMessage()
            return not (_from_auth(seen) or "Sign in" in text or "OAuth" in text)
        return True


def _from_auth(exc: BaseException | None) -> bool:
    while exc is not None:
        if isinstance(exc, BaseExceptionGroup):
            return any(_from_auth(e) for e in exc.exceptions)
        if isinstance(exc, SignInRequired | SignInError | OAuthFlowError | ValidationError):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


for _name in ("mcp.client.auth.oauth2", "mcp.client.streamable_http"):
    logging.getLogger(_name).addFilter(_QuietAuthLogs())
