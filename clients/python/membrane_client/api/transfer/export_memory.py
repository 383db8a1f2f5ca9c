import datetime
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.memory_type import MemoryType
from ...models.problem import Problem
from ...models.sensitivity import Sensitivity
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    scope: list[str] | Unset = UNSET,
    type_: list[MemoryType] | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
    include_embeddings: bool | Unset = False,
    x_membrane_max_sensitivity: Sensitivity | Unset = UNSET,
    x_membrane_scopes: str | Unset = UNSET,
    membrane_consistency_token: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_membrane_max_sensitivity, Unset):
        headers["X-Membrane-Max-Sensitivity"] = str(x_membrane_max_sensitivity)

    if not isinstance(x_membrane_scopes, Unset):
        headers["X-Membrane-Scopes"] = x_membrane_scopes

    if not isinstance(membrane_consistency_token, Unset):
        headers["Membrane-Consistency-Token"] = membrane_consistency_token

    if not isinstance(x_request_id, Unset):
        headers["X-Request-ID"] = x_request_id

    params: dict[str, Any] = {}

    json_scope: list[str] | Unset = UNSET
    if not isinstance(scope, Unset):
        json_scope = scope

    params["scope"] = json_scope

    json_type_: list[str] | Unset = UNSET
    if not isinstance(type_, Unset):
        json_type_ = []
        for type_item_data in type_:
            type_item = type_item_data.value
            json_type_.append(type_item)

    params["type"] = json_type_

    json_created_after: str | Unset = UNSET
    if not isinstance(created_after, Unset):
        json_created_after = created_after.isoformat()
    params["created_after"] = json_created_after

    json_created_before: str | Unset = UNSET
    if not isinstance(created_before, Unset):
        json_created_before = created_before.isoformat()
    params["created_before"] = json_created_before

    params["include_embeddings"] = include_embeddings

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/export",
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | str | None:
    if response.status_code == 400:
        response_400 = response.text
        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

        return response_429

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | str]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    scope: list[str] | Unset = UNSET,
    type_: list[MemoryType] | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
    include_embeddings: bool | Unset = False,
    x_membrane_max_sensitivity: Sensitivity | Unset = UNSET,
    x_membrane_scopes: str | Unset = UNSET,
    membrane_consistency_token: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
) -> Response[Problem | str]:
    """Admin: stream records with their edges, provenance, audit and vectors as NDJSON

    Args:
        scope (list[str] | Unset):
        type_ (list[MemoryType] | Unset):
        created_after (datetime.datetime | Unset):
        created_before (datetime.datetime | Unset):
        include_embeddings (bool | Unset):  Default: False.
        x_membrane_max_sensitivity (Sensitivity | Unset):
        x_membrane_scopes (str | Unset): Comma-separated scopes to narrow this request to (never
            widens).
        membrane_consistency_token (str | Unset): The token a write answered with: with read
            replicas, this read is served by one that has replayed that write, else by the primary.
        x_request_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | str]
    """

    kwargs = _get_kwargs(
        scope=scope,
        type_=type_,
        created_after=created_after,
        created_before=created_before,
        include_embeddings=include_embeddings,
        x_membrane_max_sensitivity=x_membrane_max_sensitivity,
        x_membrane_scopes=x_membrane_scopes,
        membrane_consistency_token=membrane_consistency_token,
        x_request_id=x_request_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    scope: list[str] | Unset = UNSET,
    type_: list[MemoryType] | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
    include_embeddings: bool | Unset = False,
    x_membrane_max_sensitivity: Sensitivity | Unset = UNSET,
    x_membrane_scopes: str | Unset = UNSET,
    membrane_consistency_token: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
) -> Problem | str | None:
    """Admin: stream records with their edges, provenance, audit and vectors as NDJSON

    Args:
        scope (list[str] | Unset):
        type_ (list[MemoryType] | Unset):
        created_after (datetime.datetime | Unset):
        created_before (datetime.datetime | Unset):
        include_embeddings (bool | Unset):  Default: False.
        x_membrane_max_sensitivity (Sensitivity | Unset):
        x_membrane_scopes (str | Unset): Comma-separated scopes to narrow this request to (never
            widens).
        membrane_consistency_token (str | Unset): The token a write answered with: with read
            replicas, this read is served by one that has replayed that write, else by the primary.
        x_request_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | str
    """

    return sync_detailed(
        client=client,
        scope=scope,
        type_=type_,
        created_after=created_after,
        created_before=created_before,
        include_embeddings=include_embeddings,
        x_membrane_max_sensitivity=x_membrane_max_sensitivity,
        x_membrane_scopes=x_membrane_scopes,
        membrane_consistency_token=membrane_consistency_token,
        x_request_id=x_request_id,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    scope: list[str] | Unset = UNSET,
    type_: list[MemoryType] | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
    include_embeddings: bool | Unset = False,
    x_membrane_max_sensitivity: Sensitivity | Unset = UNSET,
    x_membrane_scopes: str | Unset = UNSET,
    membrane_consistency_token: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
) -> Response[Problem | str]:
    """Admin: stream records with their edges, provenance, audit and vectors as NDJSON

    Args:
        scope (list[str] | Unset):
        type_ (list[MemoryType] | Unset):
        created_after (datetime.datetime | Unset):
        created_before (datetime.datetime | Unset):
        include_embeddings (bool | Unset):  Default: False.
        x_membrane_max_sensitivity (Sensitivity | Unset):
        x_membrane_scopes (str | Unset): Comma-separated scopes to narrow this request to (never
            widens).
        membrane_consistency_token (str | Unset): The token a write answered with: with read
            replicas, this read is served by one that has replayed that write, else by the primary.
        x_request_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | str]
    """

    kwargs = _get_kwargs(
        scope=scope,
        type_=type_,
        created_after=created_after,
        created_before=created_before,
        include_embeddings=include_embeddings,
        x_membrane_max_sensitivity=x_membrane_max_sensitivity,
        x_membrane_scopes=x_membrane_scopes,
        membrane_consistency_token=membrane_consistency_token,
        x_request_id=x_request_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    scope: list[str] | Unset = UNSET,
    type_: list[MemoryType] | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
    include_embeddings: bool | Unset = False,
    x_membrane_max_sensitivity: Sensitivity | Unset = UNSET,
    x_membrane_scopes: str | Unset = UNSET,
    membrane_consistency_token: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
) -> Problem | str | None:
    """Admin: stream records with their edges, provenance, audit and vectors as NDJSON

    Args:
        scope (list[str] | Unset):
        type_ (list[MemoryType] | Unset):
        created_after (datetime.datetime | Unset):
        created_before (datetime.datetime | Unset):
        include_embeddings (bool | Unset):  Default: False.
        x_membrane_max_sensitivity (Sensitivity | Unset):
        x_membrane_scopes (str | Unset): Comma-separated scopes to narrow this request to (never
            widens).
        membrane_consistency_token (str | Unset): The token a write answered with: with read
            replicas, this read is served by one that has replayed that write, else by the primary.
        x_request_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | str
    """

    return (
        await asyncio_detailed(
            client=client,
            scope=scope,
            type_=type_,
            created_after=created_after,
            created_before=created_before,
            include_embeddings=include_embeddings,
            x_membrane_max_sensitivity=x_membrane_max_sensitivity,
            x_membrane_scopes=x_membrane_scopes,
            membrane_consistency_token=membrane_consistency_token,
            x_request_id=x_request_id,
        )
    ).parsed
