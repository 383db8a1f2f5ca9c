from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, Literal, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ProvenanceLine")


@_attrs_define
class ProvenanceLine:
    """A provenance source row of a record (`source_kind` is the row's own kind).

    Attributes:
        record_id (str): A record id: a lowercase UUID, as the service issues them.
        source_kind (str):
        kind (Literal['provenance'] | Unset):  Default: 'provenance'.
        id (int | None | Unset):
        ref (None | str | Unset):
        hash_ (None | str | Unset):
        created_by (None | str | Unset):
        timestamp (float | None | Unset):
    """

    record_id: str
    source_kind: str
    kind: Literal["provenance"] | Unset = "provenance"
    id: int | None | Unset = UNSET
    ref: None | str | Unset = UNSET
    hash_: None | str | Unset = UNSET
    created_by: None | str | Unset = UNSET
    timestamp: float | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        record_id = self.record_id

        source_kind = self.source_kind

        kind = self.kind

        id: int | None | Unset
        if isinstance(self.id, Unset):
            id = UNSET
        else:
            id = self.id

        ref: None | str | Unset
        if isinstance(self.ref, Unset):
            ref = UNSET
        else:
            ref = self.ref

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

        timestamp: float | None | Unset
        if isinstance(self.timestamp, Unset):
            timestamp = UNSET
        else:
            timestamp = self.timestamp

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "record_id": record_id,
                "source_kind": source_kind,
            }
        )
        if kind is not UNSET:
            field_dict["kind"] = kind
        if id is not UNSET:
            field_dict["id"] = id
        if ref is not UNSET:
            field_dict["ref"] = ref
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
        record_id = d.pop("record_id")

        source_kind = d.pop("source_kind")

        kind = cast(Literal["provenance"] | Unset, d.pop("kind", UNSET))
        if kind != "provenance" and not isinstance(kind, Unset):
            raise ValueError(f"kind must match const 'provenance', got '{kind}'")

        def _parse_id(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        id = _parse_id(d.pop("id", UNSET))

        def _parse_ref(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        ref = _parse_ref(d.pop("ref", UNSET))

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

        def _parse_timestamp(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        timestamp = _parse_timestamp(d.pop("timestamp", UNSET))

        provenance_line = cls(
            record_id=record_id,
            source_kind=source_kind,
            kind=kind,
            id=id,
            ref=ref,
            hash_=hash_,
            created_by=created_by,
            timestamp=timestamp,
        )

        return provenance_line
