from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.job_name import JobName
from ...models.job_run_out import JobRunOut
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    job: JobName,
    *,
    x_request_id: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_request_id, Unset):
        headers["X-Request-ID"] = x_request_id

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/jobs/{job}/run".format(
            job=quote(str(job), safe=""),
        ),
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> JobRunOut | Problem | str | None:
    if response.status_code == 200:
        response_200 = JobRunOut.from_dict(response.json())

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

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())

        return response_409

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
) -> Response[JobRunOut | Problem | str]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    job: JobName,
    *,
    client: AuthenticatedClient,
    x_request_id: str | Unset = UNSET,
) -> Response[JobRunOut | Problem | str]:
    """Run a job now and wait for it (409 while another run holds its lock)

    Args:
        job (JobName):
        x_request_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[JobRunOut | Problem | str]
    """

    kwargs = _get_kwargs(
        job=job,
        x_request_id=x_request_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    job: JobName,
    *,
    client: AuthenticatedClient,
    x_request_id: str | Unset = UNSET,
) -> JobRunOut | Problem | str | None:
    """Run a job now and wait for it (409 while another run holds its lock)

    Args:
        job (JobName):
        x_request_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        JobRunOut | Problem | str
    """

    return sync_detailed(
        job=job,
        client=client,
        x_request_id=x_request_id,
    ).parsed


async def asyncio_detailed(
    job: JobName,
    *,
    client: AuthenticatedClient,
    x_request_id: str | Unset = UNSET,
) -> Response[JobRunOut | Problem | str]:
    """Run a job now and wait for it (409 while another run holds its lock)

    Args:
        job (JobName):
        x_request_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[JobRunOut | Problem | str]
    """

    kwargs = _get_kwargs(
        job=job,
        x_request_id=x_request_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    job: JobName,
    *,
    client: AuthenticatedClient,
    x_request_id: str | Unset = UNSET,
) -> JobRunOut | Problem | str | None:
    """Run a job now and wait for it (409 while another run holds its lock)

    Args:
        job (JobName):
        x_request_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        JobRunOut | Problem | str
    """

    return (
        await asyncio_detailed(
            job=job,
            client=client,
            x_request_id=x_request_id,
        )
    ).parsed
