from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.job_run_out_counts import JobRunOutCounts


T = TypeVar("T", bound="JobRunOut")


@_attrs_define
class JobRunOut:
    """
    Attributes:
        id (int):
        job (str):
        trigger (str): `schedule` or `manual`.
        status (str): `running`, `succeeded` or `failed`.
        started_at (datetime.datetime):
        finished_at (datetime.datetime | None):
        duration_s (float | None):
        counts (JobRunOutCounts):
        error (None | str):
    """

    id: int
    job: str
    trigger: str
    status: str
    started_at: datetime.datetime
    finished_at: datetime.datetime | None
    duration_s: float | None
    counts: JobRunOutCounts
    error: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.job_run_out_counts import JobRunOutCounts  # noqa: PLC0415

        id = self.id

        job = self.job

        trigger = self.trigger

        status = self.status

        started_at = self.started_at.isoformat()

        finished_at: None | str
        if isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        duration_s: float | None
        duration_s = self.duration_s

        counts = self.counts.to_dict()

        error: None | str
        error = self.error

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "job": job,
                "trigger": trigger,
                "status": status,
                "started_at": started_at,
                "finished_at": finished_at,
                "duration_s": duration_s,
                "counts": counts,
                "error": error,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.job_run_out_counts import JobRunOutCounts  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        job = d.pop("job")

        trigger = d.pop("trigger")

        status = d.pop("status")

        started_at = datetime.datetime.fromisoformat(d.pop("started_at"))

        def _parse_finished_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finished_at_type_0 = datetime.datetime.fromisoformat(data)

                return finished_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        finished_at = _parse_finished_at(d.pop("finished_at"))

        def _parse_duration_s(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        duration_s = _parse_duration_s(d.pop("duration_s"))

        counts = JobRunOutCounts.from_dict(d.pop("counts"))

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))

        job_run_out = cls(
            id=id,
            job=job,
            trigger=trigger,
            status=status,
            started_at=started_at,
            finished_at=finished_at,
            duration_s=duration_s,
            counts=counts,
            error=error,
        )

        job_run_out.additional_properties = d
        return job_run_out

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
