from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.outcome import Outcome
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.outcome_ingest_details import OutcomeIngestDetails


T = TypeVar("T", bound="OutcomeIngest")


@_attrs_define
class OutcomeIngest:
    """The original's outcome: `target_record_id` and `outcome_status` are accepted for
    `record_id` and `outcome`; `source` (default: the caller) becomes a provenance
    source of the record.

        Attributes:
            record_id (str):
            outcome (Outcome):
            source (None | str | Unset):
            timestamp (datetime.datetime | None | Unset):
            rationale (None | str | Unset):
            details (OutcomeIngestDetails | Unset):
    """

    record_id: str
    outcome: Outcome
    source: None | str | Unset = UNSET
    timestamp: datetime.datetime | None | Unset = UNSET
    rationale: None | str | Unset = UNSET
    details: OutcomeIngestDetails | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.outcome_ingest_details import OutcomeIngestDetails  # noqa: PLC0415

        record_id = self.record_id

        outcome = self.outcome.value

        source: None | str | Unset
        if isinstance(self.source, Unset):
            source = UNSET
        else:
            source = self.source

        timestamp: None | str | Unset
        if isinstance(self.timestamp, Unset):
            timestamp = UNSET
        elif isinstance(self.timestamp, datetime.datetime):
            timestamp = self.timestamp.isoformat()
        else:
            timestamp = self.timestamp

        rationale: None | str | Unset
        if isinstance(self.rationale, Unset):
            rationale = UNSET
        else:
            rationale = self.rationale

        details: dict[str, Any] | Unset = UNSET
        if not isinstance(self.details, Unset):
            details = self.details.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "record_id": record_id,
                "outcome": outcome,
            }
        )
        if source is not UNSET:
            field_dict["source"] = source
        if timestamp is not UNSET:
            field_dict["timestamp"] = timestamp
        if rationale is not UNSET:
            field_dict["rationale"] = rationale
        if details is not UNSET:
            field_dict["details"] = details

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.outcome_ingest_details import OutcomeIngestDetails  # noqa: PLC0415

        d = dict(src_dict)
        record_id = d.pop("record_id")

        outcome = Outcome(d.pop("outcome"))

        def _parse_source(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        source = _parse_source(d.pop("source", UNSET))

        def _parse_timestamp(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                timestamp_type_0 = datetime.datetime.fromisoformat(data)

                return timestamp_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        timestamp = _parse_timestamp(d.pop("timestamp", UNSET))

        def _parse_rationale(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        rationale = _parse_rationale(d.pop("rationale", UNSET))

        _details = d.pop("details", UNSET)
        details: OutcomeIngestDetails | Unset
        if isinstance(_details, Unset):
            details = UNSET
        else:
            details = OutcomeIngestDetails.from_dict(_details)

        outcome_ingest = cls(
            record_id=record_id,
            outcome=outcome,
            source=source,
            timestamp=timestamp,
            rationale=rationale,
            details=details,
        )

        return outcome_ingest
