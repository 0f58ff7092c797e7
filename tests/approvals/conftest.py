"""Fixtures for the approval tests: a store in its own keyring service of the real
Secret Service (asserted by ``secret_service`` from tests/conftest.py)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest

from desktop.store.approvals_store import ApprovalStore


@pytest.fixture
def service_name() -> str:
    """A keyring service of its own, so tests never see each other's approvals."""
    return f"skill-catalog-test-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def store(secret_service: Any, service_name: str) -> ApprovalStore:
    """An approval store on the real Secret Service (asserted by ``secret_service``)."""
    return ApprovalStore(service_name, timeout=30)


@pytest.fixture
def stored_secrets(service_name: str) -> Callable[[], dict[str, str]]:
    """Every secret stored under this test's service, read past the store (by attribute)."""

    def read() -> dict[str, str]:
        import secretstorage

        with secretstorage.dbus_init() as connection:
            collection = secretstorage.get_default_collection(connection)
            return {
                item.get_attributes()["username"]: item.get_secret().decode("utf-8")
                for item in collection.search_items({"service": service_name})
            }

    return read
