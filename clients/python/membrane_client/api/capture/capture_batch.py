from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.capture_batch_request import CaptureBatchRequest
from ...models.capture_batch_response import CaptureBatchResponse
from ...models.problem import Problem
from ...models.sensitivity import Sensitivity
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: CaptureBatchRequest,
    x_membrane_max_sensitivity: Sensitivity | Unset = UNSET,
    x_membrane_scopes: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_membrane_max_sensitivity, Unset):
        headers["X-Membrane-Max-Sensitivity"] = str(x_membrane_max_sensitivity)

    if not isinstance(x_membrane_scopes, Unset):
        headers["X-Membrane-Scopes"] = x_membrane_scopes

    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    if not isinstance(x_request_id, Unset):
        headers["X-Request-ID"] = x_request_id

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/capture/batch",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> CaptureBatchResponse | Problem | str | None:
    if response.status_code == 200:
        response_200 = CaptureBatchResponse.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = response.text
        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())

        return response_413

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


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[CaptureBatchResponse | Problem | str]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: CaptureBatchRequest,
    x_membrane_max_sensitivity: Sensitivity | Unset = UNSET,
    x_membrane_scopes: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
) -> Response[CaptureBatchResponse | Problem | str]:
    """Capture up to 1,000 items in one request; results in order, one per item

    Args:
        x_membrane_max_sensitivity (Sensitivity | Unset):
        x_membrane_scopes (str | Unset): Comma-separated scopes to narrow this request to (never
            widens).
        idempotency_key (str | Unset): Makes this write idempotent: a retry with the same key and
            request within the retention window (24 h by default) answers the first response again
            (with `Idempotent-Replayed: true`) and writes nothing; the same key with a different
            request answers 422. Keys are per API key and effective trust (ceiling and scopes after
            narrowing headers).
        x_request_id (str | Unset):
        body (CaptureBatchRequest): Up to 1,000 captures, each exactly as POST /v1/capture takes
            it. Items are
            validated one by one: a bad item gets its own problem and does not spoil the others.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CaptureBatchResponse | Problem | str]
    """

    kwargs = _get_kwargs(
        body=body,
        x_membrane_max_sensitivity=x_membrane_max_sensitivity,
        x_membrane_scopes=x_membrane_scopes,
        idempotency_key=idempotency_key,
        x_request_id=x_request_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: CaptureBatchRequest,
    x_membrane_max_sensitivity: Sensitivity | Unset = UNSET,
    x_membrane_scopes: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
) -> CaptureBatchResponse | Problem | str | None:
    """Capture up to 1,000 items in one request; results in order, one per item

    Args:
        x_membrane_max_sensitivity (Sensitivity | Unset):
        x_membrane_scopes (str | Unset): Comma-separated scopes to narrow this request to (never
            widens).
        idempotency_key (str | Unset): Makes this write idempotent: a retry with the same key and
            request within the retention window (24 h by default) answers the first response again
            (with `Idempotent-Replayed: true`) and writes nothing; the same key with a different
            request answers 422. Keys are per API key and effective trust (ceiling and scopes after
            narrowing headers).
        x_request_id (str | Unset):
        body (CaptureBatchRequest): Up to 1,000 captures, each exactly as POST /v1/capture takes
            it. Items are
            validated one by one: a bad item gets its own problem and does not spoil the others.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CaptureBatchResponse | Problem | str
    """

    return sync_detailed(
        client=client,
        body=body,
        x_membrane_max_sensitivity=x_membrane_max_sensitivity,
        x_membrane_scopes=x_membrane_scopes,
        idempotency_key=idempotency_key,
        x_request_id=x_request_id,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: CaptureBatchRequest,
    x_membrane_max_sensitivity: Sensitivity | Unset = UNSET,
    x_membrane_scopes: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
) -> Response[CaptureBatchResponse | Problem | str]:
    """Capture up to 1,000 items in one request; results in order, one per item

    Args:
        x_membrane_max_sensitivity (Sensitivity | Unset):
        x_membrane_scopes (str | Unset): Comma-separated scopes to narrow this request to (never
            widens).
        idempotency_key (str | Unset): Makes this write idempotent: a retry with the same key and
            request within the retention window (24 h by default) answers the first response again
            (with `Idempotent-Replayed: true`) and writes nothing; the same key with a different
            request answers 422. Keys are per API key and effective trust (ceiling and scopes after
            narrowing headers).
        x_request_id (str | Unset):
        body (CaptureBatchRequest): Up to 1,000 captures, each exactly as POST /v1/capture takes
            it. Items are
            validated one by one: a bad item gets its own problem and does not spoil the others.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CaptureBatchResponse | Problem | str]
    """

    kwargs = _get_kwargs(
        body=body,
        x_membrane_max_sensitivity=x_membrane_max_sensitivity,
        x_membrane_scopes=x_membrane_scopes,
        idempotency_key=idempotency_key,
        x_request_id=x_request_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: CaptureBatchRequest,
    x_membrane_max_sensitivity: Sensitivity | Unset = UNSET,
    x_membrane_scopes: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
) -> CaptureBatchResponse | Problem | str | None:
    """Capture up to 1,000 items in one request; results in order, one per item

    Args:
        x_membrane_max_sensitivity (Sensitivity | Unset):
        x_membrane_scopes (str | Unset): Comma-separated scopes to narrow this request to (never
            widens).
        idempotency_key (str | Unset): Makes this write idempotent: a retry with the same key and
            request within the retention window (24 h by default) answers the first response again
            (with `Idempotent-Replayed: true`) and writes nothing; the same key with a different
            request answers 422. Keys are per API key and effective trust (ceiling and scopes after
            narrowing headers).
        x_request_id (str | Unset):
        body (CaptureBatchRequest): Up to 1,000 captures, each exactly as POST /v1/capture takes
            it. Items are
            validated one by one: a bad item gets its own problem and does not spoil the others.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CaptureBatchResponse | Problem | str
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            x_membrane_max_sensitivity=x_membrane_max_sensitivity,
            x_membrane_scopes=x_membrane_scopes,
            idempotency_key=idempotency_key,
            x_request_id=x_request_id,
        )
    ).parsed
