"""Secrets in server settings: which values are secret, and how they are shown.

A value is secret by its name (a header or variable such as ``Authorization`` or
``API_KEY``), by its place (the argument after ``--token``, a URL's password) or by its
shape (a generated key, ``ghp_…``, an AWS key). What is shown of one never holds the
literal secret in full; placeholders (``${env:TOKEN}``) are kept, as they name where a
value comes from, not the value.

Pure: no I/O, no global state.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from typing import Protocol

# ${VAR}, ${VAR:-default}, ${env:VAR}, ${input:ID}, ${keyring:ENTRY}
PLACEHOLDER_RE = re.compile(
    r"\$\{(?:(?P<kind>env|input|keyring):)?"
    r"(?P<name>[A-Za-z_][A-Za-z0-9_./-]*)"
    r"(?::-(?P<default>[^}]*))?\}"
)

# Header and variable names whose values are secret whatever they look like.
_SECRET_NAME_RE = re.compile(
    r"(auth|token|secret|passw|pwd|api[-_]?key|apikey|cookie|credential|private|session|bearer"
    # "key" and "sig" as words: STRIPE_KEY, Ocp-Apim-Subscription-Key, a SAS URL's sig=...
    r"|(?:^|[^a-z])(?:keys?|sig|signature)(?:$|[^a-z]))",
    re.IGNORECASE,
)
# An auth scheme worth keeping visible in front of a redacted credential.
_SCHEME_RE = re.compile(r"^(Bearer|Basic|Token|Bot|Digest)\s+", re.IGNORECASE)
MASK = "****"


def has_placeholders(value: str) -> bool:
    return PLACEHOLDER_RE.search(value) is not None


def only_placeholders(value: str) -> bool:
    """True when ``value`` holds nothing but placeholders and blanks (so nothing secret)."""
    return bool(value.strip()) and not PLACEHOLDER_RE.sub("", value).strip()


def looks_secret(name: str, value: str = "") -> bool:
    """Whether a header or variable probably carries a secret (by name or by shape)."""
    if _SECRET_NAME_RE.search(name):
        return True
    literal = PLACEHOLDER_RE.sub("", value).strip()
    return bool(_SCHEME_RE.match(literal)) or _looks_like_token(literal)


def _looks_like_token(text: str) -> bool:
    """A long run that reads like a generated key: letters and digits switching often.

    Paths, URLs, package names (``@scope/name``) and file names are not tokens.
    """
    if len(text) < 20 or any(c in text for c in " /@\\") or text[:1] in "~.":
        return False
    if "." in text and min(len(part) for part in text.split(".")) < 8:
        return False
    switches = sum(
        1
        for a, b in itertools.pairwise(text)
        if a.isdigit() != b.isdigit() and a.isalnum() and b.isalnum()
    )
    mixed_case = any(c.isupper() for c in text) and any(c.islower() for c in text)
    has_digit = any(c.isdigit() for c in text)
    return switches >= 4 or (len(text) >= 32 and mixed_case and has_digit)


def secret_arg_spans(argv: Iterable[str]) -> list[tuple[int, int]]:
    """Where secrets sit in a command line: ``(argument index, offset of the secret)``.

    ``--token=VALUE`` (offset after ``=``), the argument after ``--api-key``, and an
    argument that reads like a generated token. Placeholders are not secrets.
    """
    args = list(argv)
    spans: list[tuple[int, int]] = []
    tool: str | None = None  # a program seen so far that takes a password as -pPW
    for i, arg in enumerate(args):
        base = _program(arg)
        if _PASSWORD_FLAG_TOOLS_RE.match(base):
            tool = base
        if i == 0:
            continue
        if tool is not None and not arg.startswith("--"):
            short = _short_password_flag(tool)
            if arg.startswith(short) and len(arg) > len(short):
                if not only_placeholders(arg[len(short) :]):
                    spans.append((i, len(short)))
                continue
            if args[i - 1] == short and not arg.startswith("-") and not only_placeholders(arg):
                spans.append((i, 0))
                continue
        flag = _FLAG_RE.match(arg)
        if flag and flag.group(2) is not None:
            value = flag.group(2)
            if value and not only_placeholders(value) and _SECRET_NAME_RE.search(flag.group(1)):
                spans.append((i, len(arg) - len(value)))
            continue
        prev = _FLAG_RE.match(args[i - 1]) if i > 1 else None
        secret_flag = (
            prev is not None and prev.group(2) is None and _SECRET_NAME_RE.search(prev.group(1))
        )
        if arg.startswith("-") or only_placeholders(arg):
            continue
        literal = PLACEHOLDER_RE.sub("", arg)
        if secret_flag or _looks_like_token(literal):
            spans.append((i, 0))
            continue
        # A header passed as an argument (``-H "Authorization: Bearer X"``) or a variable
        # (``env API_KEY=X``, ``docker -e GITHUB_TOKEN=X``): secret by its name or scheme.
        named = _HEADER_ARG_RE.match(arg) or _VARIABLE_ARG_RE.match(arg)
        if named is not None:
            value = arg[named.end() :]
            if value and not only_placeholders(value) and looks_secret(named.group(1), value):
                spans.append((i, named.end()))
    return spans


# Programs that take a password glued to a short flag (``mysql -pPW``, ``sshpass -pPW``,
# ``mongosh -p PW``, ``redis-cli -a PW``): for them that flag's value is a secret.
_PASSWORD_FLAG_TOOLS_RE = re.compile(
    r"^(mysql[a-z_-]*|mariadb[a-z_-]*|mongo[a-z_-]*|sshpass|redis-cli|keydb-cli)$"
)


def _program(arg: str) -> str:
    base = arg.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return base[:-4] if base.endswith(".exe") else base


def _short_password_flag(tool: str) -> str:
    return "-a" if tool.endswith("-cli") else "-p"


# A password in a connection URL: ``scheme://user:PASSWORD@host`` (postgresql, mysql,
# redis, mongodb, amqp, any scheme); the user name may be empty (``redis://:PW@h``).
# The scheme is held to 32 characters, so a long run of letters costs linear time.
_URL_PASSWORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{0,31}://[^\s/@:]*:(?P<pw>[^\s/@]+)@")
# Keys with a well-known shape, wherever they sit in a value.
_KNOWN_TOKEN_RE = re.compile(
    r"(?<![A-Za-z0-9])(?:"
    r"gh[pousr]_[A-Za-z0-9]{20,}"
    r"|github_pat_[A-Za-z0-9_]{20,}"
    r"|xox[a-z]-[A-Za-z0-9-]{8,}"
    r"|sk-[A-Za-z0-9_-]{16,}"
    r"|[sr]k_(?:live|test)_[A-Za-z0-9]{8,}"
    r"|(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[A-Z0-9]{16}"
    r"|glpat-[A-Za-z0-9_-]{20,}"
    r"|AIza[A-Za-z0-9_-]{35}"
    r")"
)
# An AWS secret access key: 40 characters of base64 with upper, lower case and digits.
_AWS_SECRET_RE = re.compile(r"(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")


def inline_secrets(text: str) -> list[str]:
    """Secrets written inside a value, whatever its name: a connection URL's password,
    keys of a well-known shape (``ghp_``, ``github_pat_``, ``xox…``, ``sk-…``, AWS keys).
    Placeholders are not secrets."""
    if len(text) > _INLINE_SCAN_CHARS:
        text = text[:_INLINE_SCAN_CHARS]
    found = [m.group("pw") for m in _URL_PASSWORD_RE.finditer(text)]
    found += [m.group(0) for m in _KNOWN_TOKEN_RE.finditer(text)]
    found += [
        m.group(0)
        for m in _AWS_SECRET_RE.finditer(text)
        if _mixed(m.group(0)) and not m.group(0).startswith("/")
    ]
    return [f for f in found if not only_placeholders(f) and not has_placeholders(f)]


_INLINE_SCAN_CHARS = 1_000_000


def _mixed(text: str) -> bool:
    return (
        any(c.isupper() for c in text)
        and any(c.islower() for c in text)
        and any(c.isdigit() for c in text)
    )


def _mask_inline(text: str) -> str:
    found = inline_secrets(text)
    return scrub(text, found) if found else text


def _nested_secrets(arg: str) -> list[str]:
    """Secrets in an argument that is itself a command line (``sh -c "mysql -pPW"``)."""
    if not any(c.isspace() for c in arg) or len(arg) > _INLINE_SCAN_CHARS:
        return []
    import shlex

    try:
        tokens = shlex.split(arg)
    except ValueError:
        tokens = arg.split()
    inner = ["", *tokens]
    return [inner[i][offset:] for i, offset in secret_arg_spans(inner)]


_HEADER_ARG_RE = re.compile(r"^([A-Za-z][A-Za-z0-9_-]+):[ \t]*(?!//)")
_VARIABLE_ARG_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=")


_FLAG_RE = re.compile(r"^--?([A-Za-z][A-Za-z0-9_.-]*)(?:=(.*))?$", re.DOTALL)


def redact_command(argv: Iterable[str]) -> tuple[str, ...]:
    """A command line for display, secrets in it masked (see :func:`secret_arg_spans`
    and :func:`inline_secrets`)."""
    args = list(argv)
    for i, offset in secret_arg_spans(args):
        args[i] = args[i][:offset] + redact(args[i][offset:])
    for i in range(1, len(args)):
        found = inline_secrets(args[i]) + _nested_secrets(args[i])
        if found:
            args[i] = scrub(args[i], found)
    return tuple(args)


def mask_endpoint(
    transport: str | None, endpoint: str, command: Iterable[str] | None = None
) -> str:
    """An endpoint as shown to people: secrets in a command line (``--api-key X``, a
    token-like argument), in a URL's query or in its userinfo masked. ``command`` is
    the argument list where known; otherwise the endpoint is split like a shell line.
    ``transport`` None: a URL is told by its scheme."""
    import shlex
    from urllib.parse import urlsplit, urlunsplit

    if transport is None:
        transport = "http" if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", endpoint) else "stdio"
    if transport == "stdio":
        try:
            argv = list(command) if command else shlex.split(endpoint)
        except ValueError:
            argv = endpoint.split()
        if not argv:
            return endpoint
        shown = redact_command(argv)
        if list(shown) == argv:
            return endpoint
        return " ".join(
            shlex.quote(o) if r == o else (f"'{r}'" if any(c.isspace() for c in r) else r)
            for r, o in zip(shown, argv, strict=True)
        )
    if transport != "http":
        return endpoint
    try:
        parts = urlsplit(endpoint)
    except ValueError:
        return redact(endpoint)
    netloc = parts.netloc
    if "@" in netloc:
        user, _, host = netloc.rpartition("@")
        name, sep, password = user.partition(":")
        if not sep and _looks_like_token(PLACEHOLDER_RE.sub("", name)):
            name = redact(name)  # https://TOKEN@host: the user name is the credential
        netloc = f"{name}{sep}{redact(password) if sep else ''}@{host}"
    query = "&".join(
        f"{k}={display_value(k, v)}" if sep else k
        for k, sep, v in (q.partition("=") for q in parts.query.split("&") if q)
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def scrub(text: str, secrets: Iterable[str]) -> str:
    """``text`` with each of ``secrets`` in it masked as :func:`redact` shows it."""
    for secret in sorted(set(secrets), key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, redact(secret))
    return text


def redact(value: str) -> str:
    """A display form of a possibly secret value; never the literal secret in full.

    Placeholders are kept (they name where a value comes from, not the value); a
    leading auth scheme (``Bearer``) is kept; every other literal run is replaced by
    ``****``. Only a value of 24 characters or more keeps its last 4 characters, so a
    user can tell two long tokens apart.
    """
    if not value:
        return value
    if only_placeholders(value):
        return value
    scheme = _SCHEME_RE.match(value)
    head = scheme.group(0) if scheme else ""
    rest = value[len(head) :]
    parts: list[str] = []
    last = 0
    for m in PLACEHOLDER_RE.finditer(rest):
        if m.start() > last:
            parts.append(_mask(rest[last : m.start()]))
        parts.append(m.group(0))
        last = m.end()
    if last < len(rest):
        parts.append(_mask(rest[last:]))
    return head + "".join(parts)


def _mask(literal: str) -> str:
    if not literal.strip():
        return literal
    if len(literal) >= 24:
        return MASK + literal[-4:]
    return MASK


def display_value(name: str, value: str) -> str:
    """What to show for an env variable or header: redacted when it looks secret, and
    otherwise with the secrets written inside it (a connection URL's password, a key of
    a well-known shape) masked."""
    return redact(value) if looks_secret(name, value) else _mask_inline(value)


def spec_secrets(spec: SpecSettings) -> list[str]:
    """The literal secrets a spec holds (command arguments, URL password and query
    values, env values and headers that look secret), longest first, to be masked
    wherever a message may repeat them (a server's stderr echoing its arguments)."""
    from urllib.parse import urlsplit

    found: list[str] = []
    if spec.transport == "stdio" and spec.command:
        args = list(spec.command)
        found += [args[i][offset:] for i, offset in secret_arg_spans(args)]
        for arg in args[1:]:
            found += inline_secrets(arg) + _nested_secrets(arg)
    elif spec.transport == "http":
        try:
            parts = urlsplit(spec.endpoint)
            if parts.password:
                found.append(parts.password)
            elif parts.username and _looks_like_token(parts.username):
                found.append(parts.username)
            for key, _sep, value in (q.partition("=") for q in parts.query.split("&") if q):
                if value and display_value(key, value) != value:
                    found.append(value)
        except ValueError:
            pass
    for key, value in (*spec.env, *spec.headers):
        if value and looks_secret(key, value):
            scheme = _SCHEME_RE.match(value)
            found.append(value[scheme.end() :] if scheme else value)
        elif value:
            found += inline_secrets(value)
    literal = {PLACEHOLDER_RE.sub("", s).strip() for s in found}
    return sorted((s for s in literal if len(s) >= 4), key=len, reverse=True)


class SpecSettings(Protocol):
    """The settings of a source that may hold secrets (a ``SourceSpec`` has them)."""

    @property
    def transport(self) -> str: ...
    @property
    def endpoint(self) -> str: ...
    @property
    def command(self) -> tuple[str, ...]: ...
    @property
    def env(self) -> tuple[tuple[str, str], ...]: ...
    @property
    def headers(self) -> tuple[tuple[str, str], ...]: ...
