"""Review signatures made and checked by OpenSSH's ``ssh-keygen -Y``, and the key git
signs commits with.

A private key never enters this process: ``ssh-keygen -Y sign`` reads it itself (or
asks ``ssh-agent`` when given a public key), and ``ssh-keygen -Y verify`` checks a
signature against the repository's ``allowed_signers``. Every call is bounded in time;
what goes wrong comes back as :class:`SigningError` with a sentence for people.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from desktop.core.review_record import NAMESPACE, RecordError, public_key_text
from desktop.core.visible import one_line

SIGN_TIMEOUT = 60.0  # seconds: an agent may ask its user to confirm
VERIFY_TIMEOUT = 20.0
GIT_TIMEOUT = 10.0


class SigningError(Exception):
    """Nothing was signed or verified, and why in plain words."""


def ssh_keygen() -> str:
    """The ``ssh-keygen`` program; raises :class:`SigningError` when there is none."""
    found = shutil.which("ssh-keygen")
    if found is None:
        raise SigningError("ssh-keygen was not found (install OpenSSH's client tools)")
    return found


def _git_config(folder: Path, name: str) -> str:
    git = shutil.which("git")
    if git is None:
        return ""
    try:
        done = subprocess.run(
            [git, "-C", str(folder), "config", "--get", name],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def git_email(folder: Path) -> str:
    """git's ``user.email`` in ``folder`` ('' when none)."""
    return _git_config(folder, "user.email")


def default_key(folder: Path) -> tuple[str, str]:
    """(the key git signs commits with in ``folder``, why there is none): git's
    ``user.signingkey`` when ``gpg.format`` is ``ssh``."""
    if _git_config(folder, "gpg.format") != "ssh":
        return "", "no --key given, and git does not sign with SSH here (gpg.format is not ssh)"
    key = _git_config(folder, "user.signingkey")
    if not key:
        return "", "no --key given, and git's user.signingkey is not set"
    return key, ""


@dataclass(frozen=True, slots=True)
class SigningKey:
    """A key to sign with: a file ``ssh-keygen -f`` takes, and its public half."""

    path: str
    key_type: str
    public: str  # base64 blob


def signing_key(key: str, temp: Path) -> SigningKey:
    """The key ``key`` names: a private key file (its public half beside it as
    ``.pub``, or derived by ``ssh-keygen -y``), a public key file whose private half
    ``ssh-agent`` holds, or git's literal ``key::ssh-… AAAA…``. A literal is written to
    a file in ``temp``. Raises :class:`SigningError`."""
    if key.startswith(("key::", "ssh-", "ecdsa-", "sk-")):
        try:
            key_type, blob = public_key_text(key)
        except RecordError as exc:
            raise SigningError(f"the key {one_line(key[:60])!r}: {exc}") from exc
        path = temp / "signing-key.pub"
        path.write_text(f"{key_type} {blob}\n", encoding="ascii")
        return SigningKey(str(path), key_type, blob)
    path = Path(os.path.expanduser(key))
    if not path.is_file():
        raise SigningError(f"the key file {path} does not exist")
    pub = path if path.suffix == ".pub" else Path(str(path) + ".pub")
    try:
        if pub.is_file():
            text = pub.read_text(encoding="utf-8", errors="replace")
        else:
            text = _run([ssh_keygen(), "-y", "-f", str(path)], b"", SIGN_TIMEOUT).decode()
        key_type, blob = public_key_text(text)
    except (OSError, RecordError) as exc:
        raise SigningError(f"the public half of {path} cannot be read: {exc}") from exc
    return SigningKey(str(path), key_type, blob)


def _run(argv: Sequence[str], data: bytes, timeout: float) -> bytes:
    try:
        done = subprocess.run(
            list(argv), input=data, capture_output=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired as exc:
        raise SigningError(f"ssh-keygen did not answer within {timeout:.0f} s") from exc
    except OSError as exc:
        raise SigningError(f"ssh-keygen could not be started: {exc.strerror or exc}") from exc
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SigningError(
            one_line(said[-1] if said else f"ssh-keygen ended with {done.returncode}")
        )
    return bytes(done.stdout)


def sign(key: SigningKey, data: bytes) -> str:
    """The armored SSH signature of ``data`` in the review namespace."""
    out = _run([ssh_keygen(), "-Y", "sign", "-n", NAMESPACE, "-f", key.path], data, SIGN_TIMEOUT)
    return out.decode("ascii", "replace")


@dataclass(frozen=True, slots=True)
class ToVerify:
    """One signature to check: who it claims to be by, the signature and the data."""

    principal: str
    sig: str
    data: bytes


def verify_many(
    allowed_signers: Path, items: Sequence[ToVerify], workers: int | None = None
) -> list[str]:
    """For each item, '' when ``ssh-keygen -Y verify`` accepts its signature as its
    principal's under ``allowed_signers``, else why not. Several run at once."""
    if not items:
        return []
    try:
        program = ssh_keygen()
    except SigningError as exc:
        return [str(exc)] * len(items)
    with tempfile.TemporaryDirectory(prefix="skill-review-") as temp:

        def one(i: int) -> str:
            sig = Path(temp) / f"{i}.sig"
            sig.write_text(items[i].sig, encoding="ascii", errors="replace")
            argv = [program, "-Y", "verify", "-n", NAMESPACE, "-f", str(allowed_signers)]
            argv += ["-I", items[i].principal, "-s", str(sig)]
            try:
                _run(argv, items[i].data, VERIFY_TIMEOUT)
            except SigningError as exc:
                return f"the signature does not verify: {exc}"
            return ""

        count = workers or min(8, (os.cpu_count() or 2) * 2)
        with ThreadPoolExecutor(max_workers=count) as pool:
            return list(pool.map(one, range(len(items))))
