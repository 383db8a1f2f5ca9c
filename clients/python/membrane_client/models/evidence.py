from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Evidence")


@_attrs_define
class Evidence:
    """The original's ProvenanceRef (source_type, source_id, timestamp): `source_type` ↔
    `kind` and `source_id` ↔ `ref`; sent in the original's names, both are returned.

        Attributes:
            ref (str):
            kind (str | Unset): Synonym of `source_type`. Default: `source_type`, else 'record'.
            source_type (None | str | Unset):
            source_id (None | str | Unset):
            note (str | Unset):  Default: ''.
            hash_ (None | str | Unset):
            created_by (None | str | Unset):
            timestamp (datetime.datetime | None | Unset):
    """

    ref: str
    kind: str | Unset = UNSET
    source_type: None | str | Unset = UNSET
    source_id: None | str | Unset = UNSET
    note: str | Unset = ""
    hash_: None | str | Unset = UNSET
    created_by: None | str | Unset = UNSET
    timestamp: datetime.datetime | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        ref = self.ref

        kind = self.kind

        source_type: None | str | Unset
        if isinstance(self.source_type, Unset):
            source_type = UNSET
        else:
            source_type = self.source_type

        source_id: None | str | Unset
        if isinstance(self.source_id, Unset):
            source_id = UNSET
        else:
            source_id = self.source_id

        note = self.note

        hash_: None | str | Unset
        if isinstance(self.hash_, Unset):
            hash_ = UNSET
        else:
            hash_ = self.hash_

        created_by: None | str | Unset
        if isinstance(self.created_by, Unset):
            created_by = UNSET
        else:
            created_by = self.created_by

        timestamp: None | str | Unset
        if isinstance(self.timestamp, Unset):
            timestamp = UNSET
        elif isinstance(self.timestamp, datetime.datetime):
            timestamp = self.timestamp.isoformat()
        else:
            timestamp = self.timestamp

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "ref": ref,
            }
        )
        if kind is not UNSET:
            field_dict["kind"] = kind
        if source_type is not UNSET:
            field_dict["source_type"] = source_type
        if source_id is not UNSET:
            field_dict["source_id"] = source_id
        if note is not UNSET:
            field_dict["note"] = note
        if hash_ is not UNSET:
            field_dict["hash"] = hash_
        if created_by is not UNSET:
            field_dict["created_by"] = created_by
        if timestamp is not UNSET:
            field_dict["timestamp"] = timestamp

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        ref = d.pop("ref")

        kind = d.pop("kind", UNSET)

        def _parse_source_type(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        source_type = _parse_source_type(d.pop("source_type", UNSET))

        def _parse_source_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        source_id = _parse_source_id(d.pop("source_id", UNSET))

        note = d.pop("note", UNSET)

        def _parse_hash_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        hash_ = _parse_hash_(d.pop("hash", UNSET))

        def _parse_created_by(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        created_by = _parse_created_by(d.pop("created_by", UNSET))

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

        evidence = cls(
            ref=ref,
            kind=kind,
            source_type=source_type,
            source_id=source_id,
            note=note,
            hash_=hash_,
            created_by=created_by,
            timestamp=timestamp,
        )

        return evidence
