"""A protected Skills-extension server and its authorization server, on 127.0.0.1.

``python oauth_server.py FOLDER --as-port A --mcp-port R [--scenario NAME]``

Both are built with the ``mcp`` SDK's server-side auth: the authorization server
(``mcp.server.auth.routes.create_auth_routes``: metadata, dynamic registration,
authorization code with PKCE, refresh) on port A, and ``skill-catalog serve``'s server
for FOLDER behind bearer auth (``streamable_http_app(auth=..., token_verifier=...)``,
with its protected resource metadata) on port R. The authorization endpoint answers
with a consent page; its "Allow" link is followed by the test's browser and redirects to
the client's loopback callback with the code and ``state``.

Test controls on the authorization server (plain HTTP, loopback only):
``POST /test/ttl?seconds=N`` (lifetime of the access tokens issued next),
``POST /test/refuse-refresh`` (refresh grants answer ``invalid_grant``),
``POST /test/refresh-delay?seconds=N`` (each renewal answers N seconds after the
refresh token it spends is marked spent: a slow token endpoint),
``POST /test/revoke`` (every access token is refused from now on),
``GET /test/stats`` (grants and refusals so far, the access tokens issued, and what each
authorization request asked with). Refresh tokens rotate and are single-use: one
presented again (``reused`` in the stats) revokes every token of its client.

Scenarios change what the servers publish, for the bad-input tests:
``wrong-resource`` (resource metadata names another server), ``no-pkce`` (metadata
without S256), ``no-access-token`` (a token answer lacking ``access_token``),
``deny`` (consent answers ``error=access_denied``), ``foreign-issuer`` (metadata
naming another issuer), ``http-issuer`` (resource metadata naming a plain-HTTP
authorization server that is not on this computer), ``other-redirect`` (registration
answering with a redirect address that is not the client's loopback one),
``echo-authorization`` (the MCP server answers ``skills/list`` and ``tools/list`` with an
error quoting the request's ``Authorization`` header, and ``skills/get`` with a -32602
quoting it, as a careless server might).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import secrets
import time
import warnings
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import uvicorn
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    ProviderTokenVerifier,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.routes import create_auth_routes
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyHttpUrl
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

ACCOUNT = "ada@example.test"


class Provider:
    """An in-memory authorization server: one user, who consents when asked."""

    def __init__(self, issuer: str, scenario: str) -> None:
        self.issuer = issuer
        self.scenario = scenario
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.pending: dict[str, tuple[str, AuthorizationParams]] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.ttl = 3600
        self.refuse_refresh = False
        self.stats: dict[str, int] = {
            "code": 0,
            "refresh": 0,
            "refused": 0,
            "register": 0,
            "reused": 0,
        }
        # Refresh tokens rotate and are single-use: each spent one is kept here, and one
        # presented again revokes every token of its client (reuse detection, as real
        # authorization servers do: the token may have been stolen).
        self.spent: set[str] = set()
        self.refresh_delay = 0.0
        self.asked: list[dict[str, Any]] = []  # each authorization request's parameters
        self.issued: list[str] = []  # every access and refresh token, in order

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.stats["register"] += 1
        self.clients[client_info.client_id] = client_info

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        ticket = secrets.token_urlsafe(16)
        assert client.client_id is not None
        self.pending[ticket] = (client.client_id, params)
        # What the client asked with (the SDK's handler has already required S256).
        self.asked.append(
            {
                "resource": params.resource,
                "code_challenge": bool(params.code_challenge),
                "redirect_uri": str(params.redirect_uri),
            }
        )
        return f"{self.issuer}/consent?{urlencode({'ticket': ticket})}"

    def consent(self, ticket: str) -> str:
        client_id, params = self.pending.pop(ticket)
        if self.scenario == "deny":
            return construct_redirect_uri(
                str(params.redirect_uri), error="access_denied", state=params.state
            )
        code = secrets.token_urlsafe(24)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or ["skills"],
            expires_at=time.time() + 300,
            client_id=client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
            subject=ACCOUNT,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access = "at-" + secrets.token_urlsafe(24)
        refresh = "rt-" + secrets.token_urlsafe(24)
        self.access[access] = AccessToken(
            token=access,
            client_id=client_id,
            scopes=scopes,
            expires_at=int(time.time()) + self.ttl,
            resource=resource,
            subject=ACCOUNT,
        )
        self.refresh[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource, subject=ACCOUNT
        )
        self.issued += [access, refresh]
        ttl, self.ttl = self.ttl, 3600
        return OAuthToken(
            access_token=access, expires_in=ttl, refresh_token=refresh, scope=" ".join(scopes)
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        del self.codes[authorization_code.code]
        self.stats["code"] += 1
        assert client.client_id is not None
        return self._issue(client.client_id, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        if refresh_token in self.spent:
            self.stats["reused"] += 1
            self.refresh = {
                k: v for k, v in self.refresh.items() if v.client_id != client.client_id
            }
            self.access = {k: v for k, v in self.access.items() if v.client_id != client.client_id}
            return None
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        if self.refuse_refresh:
            self.stats["refused"] += 1
            raise TokenError("invalid_grant", "the refresh token was revoked")
        self.refresh.pop(refresh_token.token, None)
        self.spent.add(refresh_token.token)
        self.stats["refresh"] += 1
        await asyncio.sleep(self.refresh_delay)  # a slow token endpoint: a wide race window
        assert client.client_id is not None
        return self._issue(client.client_id, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            return None
        return found

    async def revoke_token(self, token: Any) -> None:
        self.access.pop(getattr(token, "token", ""), None)


def auth_app(provider: Provider, issuer: str, scenario: str) -> Starlette:
    routes = create_auth_routes(
        provider=provider,  # type: ignore[arg-type]
        issuer_url=AnyHttpUrl(issuer),
        client_registration_options=ClientRegistrationOptions(
            enabled=True, valid_scopes=["skills"], default_scopes=["skills"]
        ),
    )

    async def consent(request: Request) -> Response:
        ticket = request.query_params.get("ticket", "")
        if ticket not in provider.pending:
            return HTMLResponse("<p>unknown request</p>", status_code=400)
        allow = f"/consent/allow?{urlencode({'ticket': ticket})}"
        return HTMLResponse(
            f'<p>Allow the catalog to read your skills?</p><a href="{allow}">Allow</a>'
        )

    async def allow(request: Request) -> Response:
        ticket = request.query_params.get("ticket", "")
        if ticket not in provider.pending:
            return HTMLResponse("<p>unknown request</p>", status_code=400)
        return RedirectResponse(provider.consent(ticket), status_code=302)

    async def ttl(request: Request) -> Response:
        provider.ttl = int(request.query_params["seconds"])
        return JSONResponse({"ttl": provider.ttl})

    async def refresh_delay(request: Request) -> Response:
        provider.refresh_delay = float(request.query_params["seconds"])
        return JSONResponse({"refresh_delay": provider.refresh_delay})

    async def refuse(request: Request) -> Response:
        provider.refuse_refresh = True
        return JSONResponse({"refuse_refresh": True})

    async def revoke(request: Request) -> Response:
        provider.access.clear()
        return JSONResponse({"revoked": True})

    async def stats(request: Request) -> Response:
        return JSONResponse({**provider.stats, "tokens": provider.issued, "asked": provider.asked})

    routes += [
        Route("/consent", consent),
        Route("/consent/allow", allow),
        Route("/test/ttl", ttl, methods=["POST"]),
        Route("/test/refuse-refresh", refuse, methods=["POST"]),
        Route("/test/refresh-delay", refresh_delay, methods=["POST"]),
        Route("/test/revoke", revoke, methods=["POST"]),
        Route("/test/stats", stats),
    ]
    app: Any = Starlette(routes=routes)
    if scenario != "no-access-token":
        app = _Rewrite(app, "id-token", "/token")  # says whose account the tokens are
    if scenario in REWRITTEN and scenario != "wrong-resource":
        app = _Rewrite(app, scenario)
    return app  # type: ignore[no-any-return]


def _change(data: dict[str, Any], scenario: str) -> None:
    if scenario == "no-pkce":
        data.pop("code_challenge_methods_supported", None)
    elif scenario == "foreign-issuer":
        data["issuer"] = "https://issuer.example.test"
    elif scenario == "other-redirect":
        data["redirect_uris"] = ["https://elsewhere.example.test/callback"]
    elif scenario == "wrong-resource":
        data["resource"] = "http://127.0.0.1:1/elsewhere"
    elif scenario == "id-token":
        if "access_token" in data:  # an OpenID Connect ID token (unsigned: a test's)
            claims = json.dumps({"sub": "u-1", "email": ACCOUNT, "iss": "test"}).encode()
            payload = base64.urlsafe_b64encode(claims).rstrip(b"=").decode()
            data["id_token"] = f"eyJhbGciOiJub25lIn0.{payload}."
    else:
        data.pop("access_token", None)


REWRITTEN = {
    "no-pkce": "/.well-known/oauth-authorization-server",
    "foreign-issuer": "/.well-known/oauth-authorization-server",
    "no-access-token": "/token",
    "other-redirect": "/register",
    "wrong-resource": "/.well-known/oauth-protected-resource",
}


class _Rewrite:
    """Changes one JSON answer of an app, for one bad-input scenario."""

    def __init__(self, app: Any, scenario: str, path: str = "") -> None:
        self.app = app
        self.scenario = scenario
        self.path = path or REWRITTEN[scenario]

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or not path.startswith(self.path):
            await self.app(scope, receive, send)
            return
        start: dict[str, Any] = {}
        body = bytearray()

        async def capture(message: Any) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            else:
                body.extend(message.get("body", b""))
                if not message.get("more_body"):
                    data = json.loads(bytes(body))
                    _change(data, self.scenario)
                    out = json.dumps(data).encode()
                    headers = [
                        (k, v) for k, v in start["headers"] if k.lower() != b"content-length"
                    ]
                    headers.append((b"content-length", str(len(out)).encode()))
                    await send({**start, "headers": headers})
                    await send({"type": "http.response.body", "body": out})

        await self.app(scope, receive, capture)


class _EchoAuthorization:
    """Answers ``skills/list``, ``tools/list`` and ``skills/get`` with an error quoting
    the request's ``Authorization`` header (in its own words, and its token alone)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        body = bytearray()
        while True:
            message = await receive()
            body.extend(message.get("body", b""))
            if not message.get("more_body"):
                break
        request = json.loads(bytes(body) or b"null")
        headers = dict(scope["headers"])
        authorization = headers.get(b"authorization", b"").decode()
        method = request.get("method") if isinstance(request, dict) else None
        if method in ("skills/list", "tools/list", "skills/get") and authorization:
            token = authorization.split(" ", 1)[-1]
            error = {
                # skills/get: "no such skill", in the server's own words
                "code": -32602 if method == "skills/get" else -32603,
                "message": f"refused: header 'Authorization: {authorization}' (token={token})",
            }
            out = json.dumps({"jsonrpc": "2.0", "id": request["id"], "error": error}).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(out)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": out})
            return
        sent = False

        async def replay() -> Any:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def mcp_app(folder: Path, provider: Provider, issuer: str, resource: str, scenario: str) -> Any:
    from desktop.serve.folder_state import PublishedFolder
    from desktop.serve.server import build_server

    server = build_server(PublishedFolder(folder.resolve()))
    if scenario == "http-issuer":
        issuer = "http://auth.example.test"  # never reached: refused before any request
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        settings = AuthSettings(
            issuer_url=AnyHttpUrl(issuer),
            resource_server_url=AnyHttpUrl(resource),
            required_scopes=["skills"],
            validate_token_resource=False,
        )
    app = server.streamable_http_app(
        streamable_http_path="/mcp",
        json_response=True,
        auth=settings,
        token_verifier=ProviderTokenVerifier(provider),  # type: ignore[arg-type]
    )
    if scenario == "echo-authorization":
        return _EchoAuthorization(app)
    return _Rewrite(app, scenario) if scenario == "wrong-resource" else app


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", type=Path)
    parser.add_argument("--as-port", type=int, required=True)
    parser.add_argument("--mcp-port", type=int, required=True)
    parser.add_argument("--scenario", default="")
    args = parser.parse_args()
    issuer = f"http://127.0.0.1:{args.as_port}"
    resource = f"http://127.0.0.1:{args.mcp_port}/mcp"
    provider = Provider(issuer, args.scenario)
    servers = [
        uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan=life)
        )
        for app, port, life in (
            (auth_app(provider, issuer, args.scenario), args.as_port, "off"),
            (mcp_app(args.folder, provider, issuer, resource, args.scenario), args.mcp_port, "on"),
        )
    ]
    await asyncio.gather(*(s.serve() for s in servers))


if __name__ == "__main__":
    asyncio.run(main())
