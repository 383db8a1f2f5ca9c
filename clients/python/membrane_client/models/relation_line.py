from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, Literal, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="RelationLine")


@_attrs_define
class RelationLine:
    """An edge from an exported record (the target may be any record id or a reference).

    Attributes:
        source_id (str): A record id: a lowercase UUID, as the service issues them.
        predicate (str):
        target_id (str):
        weight (float):
        created_at (float): UNIX epoch seconds, as stored.
        kind (Literal['relation'] | Unset):  Default: 'relation'.
        id (int | None | Unset):
    """

    source_id: str
    predicate: str
    target_id: str
    weight: float
    created_at: float
    kind: Literal["relation"] | Unset = "relation"
    id: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        source_id = self.source_id

        predicate = self.predicate

        target_id = self.target_id

        weight = self.weight

        created_at = self.created_at

        kind = self.kind

        id: int | None | Unset
        if isinstance(self.id, Unset):
            id = UNSET
        else:
            id = self.id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "source_id": source_id,
                "predicate": predicate,
                "target_id": target_id,
                "weight": weight,
                "created_at": created_at,
            }
        )
        if kind is not UNSET:
            field_dict["kind"] = kind
        if id is not UNSET:
            field_dict["id"] = id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        source_id = d.pop("source_id")

        predicate = d.pop("predicate")

        target_id = d.pop("target_id")

        weight = d.pop("weight")

        created_at = d.pop("created_at")

        kind = cast(Literal["relation"] | Unset, d.pop("kind", UNSET))
        if kind != "relation" and not isinstance(kind, Unset):
            raise ValueError(f"kind must match const 'relation', got '{kind}'")

        def _parse_id(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        id = _parse_id(d.pop("id", UNSET))

        relation_line = cls(
            source_id=source_id,
            predicate=predicate,
            target_id=target_id,
            weight=weight,
            created_at=created_at,
            kind=kind,
            id=id,
        )

        return relation_line
