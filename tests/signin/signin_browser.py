"""The browser of the sign-in tests: an HTTP client that opens the authorization
address, reads the consent page, follows its "Allow" link and the redirect back to the
program's loopback address, as a person's browser would."""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from dataclasses import dataclass
from urllib.parse import parse_qs, urlencode, urljoin, urlsplit, urlunsplit

ADDRESS = re.compile(r"https?://127\.0\.0\.1:\d+/authorize\?\S+")


@dataclass
class Visit:
    status: int
    url: str
    text: str


def _open(url: str) -> Visit:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return Visit(response.status, response.url, response.read().decode("utf-8", "replace"))
    except urllib.error.HTTPError as exc:
        return Visit(exc.code, exc.url or url, exc.read().decode("utf-8", "replace"))


def address_in(text: str) -> str | None:
    """The authorization address a command printed, if it has."""
    found = ADDRESS.search(text)
    return found.group(0) if found else None


def consent(authorization_url: str, *, state: str | None = None) -> Visit:
    """Open the address, press Allow, follow the redirect back: the page the program's
    loopback listener answered. ``state`` replaces the state of the answer (a forged or
    stale callback) before it reaches the program."""
    page = _open(authorization_url)
    assert page.status == 200, (page.status, page.text)
    link = re.search(r'href="([^"]+)"', page.text)
    assert link, page.text
    allow = urljoin(page.url, link.group(1).replace("&amp;", "&"))
    if state is None:
        return _open(allow)
    # Stop at the redirect and send the callback with another state.
    opener = urllib.request.build_opener(_NoRedirect())
    try:
        opener.open(allow, timeout=30)
        raise AssertionError("the consent did not redirect")
    except urllib.error.HTTPError as exc:
        location = exc.headers["Location"]
    parts = urlsplit(location)
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    query["state"] = state
    return _open(urlunsplit(parts._replace(query=urlencode(query))))


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None
